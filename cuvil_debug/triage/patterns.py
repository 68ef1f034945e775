"""The triage knowledge as data: the evidence patterns that vote for a category and
the facts that mark a root cause (the AST facts of a line are in linefacts.py, the
signals read from messages and the library hints in messages.py).

Nothing here decides anything; classify.py and rootcause.py interpret these tables.
"""

from __future__ import annotations

from .linefacts import LINE_FACTS, line_facts
from .patternrow import Pattern, _from, _p
from .patterns_blind import (
    _ZOO18,
    _ZOO19,
    _ZOO20,
    _ZOO21,
    _ZOO22,
    _ZOO23,
    _ZOO24,
    _ZOO26,
    _ZOO27,
)
from .patterns_recent import (
    _ZOO5,
    _ZOO6,
    _ZOO7,
    _ZOO8,
    _ZOO9,
    _ZOO10,
    _ZOO12,
    _ZOO13,
    _ZOO15,
    _ZOO16,
    _ZOO17,
)

__all__ = [
    "LINE_FACTS",
    "PATTERNS",
    "ROOT_FACTS",
    "Pattern",
    "line_facts",
]


# The rows are grouped by the set each was written from (`origin`: the rows a
# set's leave-one-out score leaves out, scripts/triage_loso.py); a row's `unless`
# may have been narrowed later, from another set. Order does not matter: scores add
# up, and ties go to the more specific evidence.


# ---- rules written from samples/failures/ (hand-written; triage was built on it)
_FAILURES = [
    # control flow on a tensor's value vs on its size vs on a forward() flag
    _p("data-dependent-control-flow", "msg:proxy-control-flow", 2.0),
    _p("data-dependent-control-flow", "msg:data-dependent ast:branch", 2.0),
    _p("data-dependent-control-flow", "msg:proxy-control-flow flow:reduction", 1.5),
    _p(
        "data-dependent-control-flow", "msg:proxy-control-flow flow:tensor-compare", 1.0
    ),
    _p("dynamic-shape", "msg:proxy-control-flow flow:shape-read", 3.5, "flow:item"),
    _p("dynamic-shape", "msg:proxy-as-value flow:shape-read", 3.5, "flow:item"),
    _p("dynamic-shape", "msg:proxy-as-value ast:range", 2.0),
    _p("dynamic-shape", "msg:constraint", 4.0),
    _p("dynamic-shape", "msg:data-dependent flow:data-size", 4.0),
    _p("dynamic-shape", "exc:UserError", 1.0),
    # only fx traces a parameter as a Proxy: export and dynamo see the value itself
    _p(
        "non-tensor-argument",
        "msg:proxy-control-flow flow:param-flag",
        5.0,
        "ast:meta-test",
    ),
    _p(
        "non-tensor-argument",
        "msg:proxy-control-flow flow:param-optional",
        5.0,
        "ast:meta-test operand:rank-read",
    ),
    _p(
        "non-tensor-argument",
        "flow:param-kwargs",
        4.0,
        "fe:export fe:dynamo ast:meta-test",
    ),
    # (not when the failure is an item assignment into a traced tensor: that fails
    # whatever the tensor came from; a kwargs dict assigned into has its own row)
    _p(
        "non-tensor-argument",
        "flow:param-container",
        4.0,
        "fe:export fe:dynamo msg:proxy-setitem",
    ),
    _p("non-tensor-argument", "msg:missing-input", 5.0),
    _p("non-tensor-argument", "msg:shapeprop eager:ok flow:param-optional", 5.0),
    _p("non-tensor-argument", "msg:shapeprop eager:ok flow:param-kwargs", 5.0),
    _p("non-tensor-argument", "msg:proxy-as-value flow:param-flag", 5.0),
    _p("non-tensor-argument", "msg:container-method", 3.0),
    # fx traces a None / flag / container parameter as a Proxy; export passes the
    # value itself, and Cuvil refusing it is an input of the wrong type
    _p("non-tensor-argument", "msg:input-builtin", 3.0, "fe:export"),
    _p("non-tensor-argument", "io:container-input", 2.0, "fe:export"),
    _p(
        "non-tensor-argument",
        "sig:defaults-traced eager:ok",
        2.0,
        "fe:export fe:dynamo ast:meta-test",
    ),
    _p("non-tensor-argument", "sig:kwargs-traced msg:proxy-iter", 4.5),
    _p("non-tensor-argument", "sig:kwargs-traced msg:proxy-setitem", 3.0),
    _p("proxy-iteration", "msg:proxy-iter", 4.0),
    _p("proxy-iteration", "msg:proxy-control-flow ast:iterate", 1.0),
    # Python values taken out of tensors
    _p(
        "data-dependent-python-value",
        "msg:proxy-as-value flow:item",
        4.0,
        "near:shape-read",
    ),
    _p("data-dependent-python-value", "msg:proxy-as-value ast:item", 3.0, "ast:numpy"),
    _p(
        "data-dependent-python-value",
        "msg:specialize-int",
        4.0,
        "flow:data-size msg:unbacked-size",
    ),
    _p("data-dependent-python-value", "msg:data-dependent ast:item", 4.0),
    _p("data-dependent-python-value", "exc:TypeError flow:item", 3.0, "ast:numpy"),
    _p("dynamic-shape", "exc:TypeError flow:shape-read", 2.5, "flow:item ast:numpy"),
    _p("dynamic-shape", "msg:specialize-int flow:data-size", 5.0),
    _p("dynamic-shape", "msg:unbacked-size", 4.0),
    _p("data-dependent-python-value", "msg:data-dependent flow:item", 4.0),
    _p("non-torch-call", "ast:numpy", 2.5, "eager:fail"),
    _p("non-torch-call", "msg:numpy", 2.5),
    _p("non-torch-call", "op:non-torch", 5.0),
    _p("unsupported-python-construct", "msg:format", 5.0),
    _p("unsupported-python-construct", "msg:proxy-as-value ast:format", 4.0),
    _p("inplace-mutation", "msg:inplace", 5.0),
    _p("inplace-mutation", "msg:mutation", 3.0),
    # model bugs: eager fails too
    _p("shape-mismatch", "msg:shape eager:fail", 5.0),
    _p("shape-mismatch", "msg:shape", 1.5),
    _p("dtype-mismatch", "msg:dtype eager:fail", 5.0, "msg:shape"),
    _p("dtype-mismatch", "msg:dtype", 1.5),
    _p("undefined-name", "exc:NameError", 6.0),
    _p("undefined-name", "exc:UnboundLocalError", 6.0),
    _p("undefined-name", "msg:no-attr eager:fail", 4.0, "msg:container-method"),
    _p(
        "unsupported-op",
        "exc:UnsupportedOpError msg:unsupported-op",
        4.0,
        "msg:inplace ast:item msg:item-op op:non-torch op:user-object",
    ),
    # inputs and outputs that are not tensors
    _p("unsupported-io-type", "msg:output-not-tensor", 5.0),
    _p("unsupported-io-type", "op:user-object", 5.0),
    _p("unsupported-io-type", "msg:unsupported-arg-type", 5.0),
    _p("unsupported-io-type", "msg:input-not-tensor", 4.0, "msg:input-builtin"),
    _p("unsupported-io-type", "io:non-tensor-input", 3.0),
    # the tools, not the model
    _p("capture-limitation", "raise:lib eager:ok", 3.0),
    _p(  # (not when torch's frames say a tensor's truth was asked: guard:tensor-bool)
        "capture-limitation",
        "raise:lib eager:ok msg:proxy-control-flow",
        3.0,
        "flow:param-flag flow:param-optional guard:tensor-bool",
    ),
    _p("compiler-internal-error", "raise:cuvil eager:ok", 5.0),
    # (not when the model fails eagerly too: Cuvil refused what eager cannot run;
    # zoo12's float64 state into float32 layers, which export records anyway)
    _p("compiler-internal-error", "exc:VerifyError", 6.0, "eager:fail"),
    _p("compiler-internal-error", "exc:PassError", 6.0, "eager:fail"),
    _p("compiler-internal-error", "exc:CodegenError", 6.0, "eager:fail"),
    _p("compiler-internal-error", "msg:cuvil-bug eager:ok", 4.0),
]


# ---- rules written from samples/failures/written/ (the causes issue 16 lists)
_WRITTEN = [
    _p("data-dependent-python-value", "msg:unsupported-op ast:item", 4.0),
    _p("data-dependent-python-value", "msg:item-op", 4.0),
    # an `isinstance`/type check in the model raising on the tracer's stand-in value
    _p(
        "unsupported-python-construct", "msg:traced-type raise:user-raise eager:ok", 5.0
    ),
    # a try/except around traced code: the tracer follows one path and cannot recover
    _p("unsupported-python-construct", "ast:in-try eager:ok", 3.0),
    _p("undefined-name", "msg:call-signature eager:fail", 5.0),
]


# ---- rules written from samples/failures/library/ (transformers and torchvision)
_LIBRARY = [
    # export fails at the `if` / `while` on a value .item() took out of a tensor: the
    # branch is the problem (torch.where / torch.cond), not the number itself
    _p(
        "data-dependent-control-flow",
        "msg:data-dependent ast:branch flow:item",
        5.0,
        "msg:unbacked-size flow:data-size",
    ),
    _p(
        "data-dependent-control-flow",
        "msg:data-dependent ast:branch ast:item",
        5.0,
        "msg:unbacked-size flow:data-size",
    ),
    _p("unsupported-io-type", "msg:input-none fe:export", 5.0),
    _p("proxy-iteration", "msg:proxy-iter ast:iterate", 2.0),
    # a guard on an unbacked size (boxes.numel() after a boolean mask)
    _p(
        "dynamic-shape",
        "exc:GuardOnDataDependentSymNode ast:shape-read msg:unbacked-size",
        3.0,
    ),
    _p("capture-limitation", "msg:fx-code-patch eager:ok", 6.0),
    # a dynamo graph break in code that runs eagerly (strict export, torch.compile);
    # its kind decides when it is a known one (gb: patterns)
    _p("capture-limitation", "exc:Unsupported eager:ok", 2.0),
    _p("data-dependent-control-flow", "gb:data-dependent-branching", 5.0),
    _p("dynamic-shape", "gb:dynamic-shape-operator", 5.0),
    # a branch on a size (x.shape unpacked into the tested name) under fx
    _p("dynamic-shape", "msg:proxy-control-flow near:shape-read", 6.0, "near:item"),
]


# ---- rules written from samples/failures/timm/
_TIMM = [
    # int(math.sqrt(T)) on a T unpacked from x.shape: size arithmetic, not a value
    _p(
        "dynamic-shape",
        "msg:proxy-as-value near:shape-read",
        4.0,
        "near:item near:reduction near:numpy",
    ),
    # `if mask is not None` on an unfed Optional parameter: under fx the None is a
    # Proxy, so the branch for a real mask runs and whatever it calls fails
    _p(
        "non-tensor-argument",
        "flow:param-optional flow:is-none-test eager:ok",
        4.0,
        "fe:export fe:dynamo msg:proxy-setitem ast:meta-test operand:rank-read",
    ),
    _p(
        "non-torch-call",
        "ast:numpy msg:proxy-as-value",
        4.0,
        "near:shape-read ast:shape-math",
    ),
    _p("non-torch-call", "msg:proxy-as-value flow:numpy", 2.0, "near:shape-read"),
    # `if v.device.type != "meta"` under fx: the device is a Proxy attribute
    _p(
        "capture-limitation",
        "msg:proxy-control-flow ast:branch ast:tensor-meta eager:ok",
        6.0,
        "guard:unfed-optional",
    ),
    # torch failed inside its own check of the dynamic shapes' constraints (its
    # suggested-fix printer asserting): a dynamic Dim the model does not allow
    _p("dynamic-shape", "raise:guard-solve", 5.0, "msg:constraint"),
    # Cuvil refusing an op it has (slicing) because it lost a size to a symbol: the
    # category definitions' "a symbolic dim Cuvil mishandles" (timm and zoo label it)
    _p("compiler-internal-error", "msg:cuvil-symbolic-slice eager:ok", 6.0),
]


# ---- rules written from samples/failures/zoo/ (diffusers, MONAI)
_ZOO = [
    # an op whose output size depends on the data (nonzero): the size is the problem
    _p("dynamic-shape", "exc:DynamicOutputShapeException", 5.0),
    # Python logic over a traced size under fx — `for d in x.shape[2:]`,
    # `len(t.shape)`, `np.array(x.shape)`, `assert x.shape[1] == c` — fails with the
    # tracer's iteration / numpy / control-flow words; the failing line reading the
    # shape is what makes it a size question
    _p(
        "dynamic-shape",
        "msg:proxy-iter ast:shape-iterate",
        7.0,
        "ast:item near:item operand:param-optional",
    ),
    _p(
        "dynamic-shape",
        "msg:numpy near:shape-read",
        6.0,
        "ast:item-call near:item near:reduction operand:param-optional",
    ),
    _p(
        "dynamic-shape",
        "msg:proxy-control-flow ast:shape-attr",
        6.0,
        "ast:item ast:reduction near:item operand:param-optional ast:rank-only-test",
    ),
    # `torch.jit.isinstance(x, dict[str, Tensor])` on a Proxy: the check itself
    # branches on the traced value
    _p(
        "unsupported-python-construct",
        "msg:proxy-control-flow ast:type-check eager:ok",
        5.0,
        "ast:reduction ast:item ast:shape-read",
    ),
    # a branch under fx whose tested value came (by def-use edges, through parameter
    # passing) from a size read, and not from a value, the rank or an unfed Optional
    _p(
        "dynamic-shape",
        "msg:proxy-control-flow operand:shape-read",
        4.0,
        "operand:item operand:reduction operand:param-optional ast:rank-read "
        "ast:tensor-meta",
    ),
]


# ---- rules written from samples/failures/zoo3/ (vit-pytorch, x-transformers, smp...)
_ZOO3 = [
    # ... or unpacking a name that holds one (`shape = x.shape; b, n = *shape, h`)
    _p(
        "dynamic-shape",
        "msg:proxy-iter ast:unpack near:shape-attr",
        7.0,
        "ast:item near:item operand:param-optional",
    ),
    # dynamo refuses to trace a function it marks as skipped (a torch probe such as
    # torch.cpu._is_avx2_supported, torch.distributions' is_dependent): valid code
    # strict export / torch.compile cannot capture, whatever else failed
    _p("capture-limitation", "gb:attempted-to-call-function-marked-as-skipped", 4.0),
]


# ---- rules written from samples/failures/zoo4/ (torch-geometric, kornia, ...)
_ZOO4 = [
    # `if not torch.all(index[:-1] <= index[1:])`: a branch on a reduced comparison
    _p(
        "data-dependent-control-flow",
        "msg:proxy-control-flow ast:reduction ast:tensor-compare",
        3.0,
    ),
    _p("dynamic-shape", "msg:data-size-op", 5.0),
    # ... or `len()` of a name that holds one (`x_shape = x.shape[:2]; len(x_shape)`)
    _p(
        "dynamic-shape",
        "msg:proxy-iter ast:len-call near:shape-attr",
        7.0,
        "ast:item near:item operand:param-optional",
    ),
    # the failing line runs under (or falls through) `isinstance(x, Tensor)` /
    # `torch.is_tensor(x)`: fx's Proxy is no Tensor, so the non-tensor path ran
    _p(
        "unsupported-python-construct",
        "ast:type-guarded fe:fx eager:ok",
        8.0,
        "msg:proxy-iter",
    ),
    # `if x.ndim == 3` / `x.view(-1, 1) if x.dim() == 1 else x` under fx: the rank is
    # tensor metadata the tracer cannot branch on
    _p(
        "capture-limitation",
        "msg:proxy-control-flow ast:branch ast:rank-read eager:ok",
        6.0,
        "ast:item ast:reduction near:param-optional",
    ),
    # fx cannot name a module constructed inside forward()
    _p("capture-limitation", "msg:not-submodule eager:ok", 7.0),
]


PATTERNS: list[Pattern] = [
    *_from("failures", _FAILURES),
    *_from("written", _WRITTEN),
    *_from("library", _LIBRARY),
    *_from("timm", _TIMM),
    *_from("zoo", _ZOO),
    *_from("zoo3", _ZOO3),
    *_from("zoo4", _ZOO4),
    *_from("zoo5", _ZOO5),
    *_from("zoo6", _ZOO6),
    *_from("zoo7", _ZOO7),
    *_from("zoo8", _ZOO8),
    *_from("zoo9", _ZOO9),
    *_from("zoo10", _ZOO10),
    *_from("zoo12", _ZOO12),
    *_from("zoo13", _ZOO13),
    *_from("zoo15", _ZOO15),
    *_from("zoo16", _ZOO16),
    *_from("zoo17", _ZOO17),
    *_from("zoo18", _ZOO18),
    *_from("zoo19", _ZOO19),
    *_from("zoo20", _ZOO20),
    *_from("zoo21", _ZOO21),
    *_from("zoo22", _ZOO22),
    *_from("zoo23", _ZOO23),
    *_from("zoo24", _ZOO24),
    *_from("zoo26", _ZOO26),
    *_from("zoo27", _ZOO27),
]


# category -> facts of a candidate line that mark it as the root cause (and weights).
# `failing` marks the line where the error surfaced in user code.
ROOT_FACTS: dict[str, dict[str, float]] = {
    "data-dependent-control-flow": {
        "reduction": 3,
        "tensor-compare": 1,
        "failing": 0.5,
    },
    "data-dependent-python-value": {"item": 4, "reduction": 0.5},
    "dynamic-shape": {"data-size": 4, "shape-read": 3, "range": 1, "failing": 2},
    # `len(t)`: the failing call itself is the line to change (`t.shape[0]`)
    "proxy-iteration": {"iterate": 4, "failing": 1, "type-check": 3, "len-call": 3},
    "non-tensor-argument": {
        "param": 4,
        "forward-param": 2,
        "param-flag": 1,
        "param-optional": 1,
        "param-kwargs": 1,
        "param-container": 1,
    },
    "unsupported-io-type": {"object-construct": 4, "failing": 3, "return": 2},
    "shape-mismatch": {"module-init": 4, "size-arith": 4.5, "reshape": 2, "failing": 1},
    "dtype-mismatch": {"dtype-set": 4, "failing": 0.5},
    "non-torch-call": {"numpy": 4, "failing": 1, "type-check": 3},
    "inplace-mutation": {"inplace": 4, "failing": 2, "state-write": 4},
    "unsupported-python-construct": {"format": 4, "failing": 2, "type-check": 4},
    "undefined-name": {"failing": 4},
    "unsupported-op": {"failing": 4, "torch-call": 1},
    "capture-limitation": {"failing": 4, "decorator": 2},
    "compiler-internal-error": {"failing": 4},
}
