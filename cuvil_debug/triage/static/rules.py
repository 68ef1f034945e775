"""Static triage knowledge as data: the kinds a value can have, CONSTRUCTS (predicates
on an AST node and those kinds) and STATIC_RULES (construct -> category, weight,
frontends, wording)."""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..linefacts import _DATA_SIZE, _ITEM, _NON_TORCH, _RESHAPE, _base

ALL = frozenset({"fx", "export", "auto"})
FX = frozenset({"fx"})
# confidence = softmax share x this: a static guess is weaker than a captured error
# (about the measured top-1 accuracy on the labelled folders, docs/TRIAGE.md)
STATIC_SCALE = 0.75
TEMPERATURE = 1.0
OTHER_MASS = 1.0
MAX_DEPTH = 6


@dataclass(frozen=True)
class StaticRule:
    category: str
    weight: float
    frontends: frozenset[str]
    says: str


# construct -> what it predicts. Weights order the constructs by how surely they break
# capture; where several are found the heaviest wins (ties: the first reached).
STATIC_RULES: dict[str, StaticRule] = {
    "undefined-name": StaticRule(
        "undefined-name", 5.0, ALL, "a name that is defined nowhere"
    ),
    "undefined-attr": StaticRule(
        "undefined-name", 4.0, ALL, "a `self.` attribute the class never sets"
    ),
    "leaf-module-call": StaticRule(
        "capture-limitation",
        4.5,
        FX,
        "a torch.nn recurrent/attention module that torch.fx cannot capture",
    ),
    "non-tensor-param": StaticRule(
        "non-tensor-argument",
        4.0,
        FX,
        "an Optional / flag / container / **kwargs forward() parameter (traced as a Proxy)",
    ),
    "container-input": StaticRule(
        "non-tensor-argument",
        3.5,
        FX,
        "a dict/list example input traced as one Proxy",
    ),
    "object-input": StaticRule(
        "unsupported-io-type", 4.0, ALL, "a non-tensor object among the example inputs"
    ),
    "object-return": StaticRule(
        "unsupported-io-type",
        3.0,
        ALL,
        "forward() returns a non-tensor (dict, dataclass, object, string)",
    ),
    "item-on-value": StaticRule(
        "data-dependent-python-value",
        3.5,
        ALL,
        "a Python number taken out of a tensor (.item(), int(t), .tolist())",
    ),
    "numpy-on-value": StaticRule(
        "non-torch-call", 3.5, ALL, "numpy / math / random called on a tensor"
    ),
    "format-value": StaticRule(
        "unsupported-python-construct", 3.5, ALL, "formatting a tensor value"
    ),
    "data-size-op": StaticRule(
        "dynamic-shape",
        3.0,
        ALL,
        "an op whose output size depends on data (nonzero, masks)",
    ),
    "branch-on-value": StaticRule(
        "data-dependent-control-flow",
        3.0,
        ALL,
        "`if` / `while` / `assert` on a tensor's value",
    ),
    "inplace-on-input": StaticRule(
        "inplace-mutation", 3.0, ALL, "an in-place op on an input or a view of it"
    ),
    "out-kwarg": StaticRule("inplace-mutation", 2.5, ALL, "an `out=` argument"),
    "iterate-value": StaticRule(
        "proxy-iteration", 3.0, FX, "iterating / star-unpacking a traced tensor"
    ),
    "len-of-value": StaticRule("proxy-iteration", 3.0, FX, "len() of a traced tensor"),
    "branch-on-size": StaticRule(
        "dynamic-shape", 2.5, FX, "Python control flow on a symbolic size"
    ),
    "branch-on-dynamic-size": StaticRule(
        "dynamic-shape",
        2.5,
        frozenset({"export", "auto"}),
        "Python control flow on a size made dynamic by dynamic_shapes()",
    ),
    "range-on-size": StaticRule(
        "dynamic-shape", 2.5, FX, "range() over a symbolic size"
    ),
    "isinstance-on-value": StaticRule(
        "unsupported-python-construct", 1.0, ALL, "isinstance() on a traced value"
    ),
    "try-in-forward": StaticRule(
        "unsupported-python-construct", 0.8, ALL, "try/except around traced code"
    ),
    "generator-in-forward": StaticRule(
        "unsupported-python-construct", 1.5, ALL, "a generator (yield) in forward()"
    ),
    "state-write": StaticRule(
        "inplace-mutation", 1.0, ALL, "module state written in forward()"
    ),
}

# torch.nn modules torch.fx keeps as leaves whose outputs (tuples) it cannot capture
_LEAF_MODULES = {
    "LSTM",
    "GRU",
    "RNN",
    "MultiheadAttention",
    "TransformerEncoderLayer",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerDecoder",
    "Transformer",
}
_CONTAINERS = {"ModuleList", "Sequential", "ModuleDict"}
_VIEWS = _RESHAPE | {
    "select",
    "unsqueeze",
    "squeeze",
    "t",
    "unbind",
    "diagonal",
    "as_strided",
    "__getitem__",
}
_MASK_METHODS = {"bool", "logical_not", "logical_and", "logical_or", "isnan", "isinf"}
_SIZE_METHODS = {"size", "dim", "numel", "nelement"}
_CASTS = {"int", "float", "bool", "complex"}
_ITERATING = {"list", "tuple", "zip", "enumerate", "map", "reversed", "sorted", "iter"}
_BUILTINS = set(dir(builtins)) | {"__file__", "__name__", "__class__"}
_TORCH_ROOTS = {"torch", "F", "nn", "functional"}
_SPLITTER = re.compile(r"[A-Z][a-z0-9]+|[A-Z]+(?![a-z])")


# ---- taint ---------------------------------------------------------------------------
Kinds = frozenset[str]
NONE: Kinds = frozenset()


def _bare(k: Kinds) -> bool:
    """A traced tensor that is not a Python container of them."""
    return "value" in k and "container" not in k


def _call_attr(node: ast.AST) -> str | None:
    return node.func.attr if isinstance(node.func, ast.Attribute) else None


def _call_name(node: ast.AST) -> str | None:
    return node.func.id if isinstance(node.func, ast.Name) else None


# ---- constructs: predicate(node, stmt, ctx) -> bool, ctx.kinds(expr) gives the kinds
def _branch(kind: str, unless: str = "") -> Callable:
    def pred(n, s, c) -> bool:
        if isinstance(n, ast.If | ast.While | ast.Assert) and n is s:
            test = n.test
        elif isinstance(n, ast.IfExp):
            test = n.test
        else:
            return False
        k = c.kinds(test)
        return kind in k and not (unless and unless in k)

    return pred


def _item(n, s, c) -> bool:
    if not isinstance(n, ast.Call):
        return False
    if _call_attr(n) in _ITEM:
        return "value" in c.kinds(n.func.value)
    return _call_name(n) in _CASTS and bool(n.args) and "value" in c.kinds(n.args[0])


def _numpy(n, s, c) -> bool:
    if isinstance(n, ast.BinOp):
        left, right = c.kinds(n.left), c.kinds(n.right)
        return ("ndarray" in left and "value" in right) or (
            "ndarray" in right and "value" in left
        )
    if not isinstance(n, ast.Call):
        return False
    if _call_attr(n) == "numpy":
        return "value" in c.kinds(n.func.value)
    return _base(n) in _NON_TORCH and any(
        "value" in c.kinds(a) for a in [*n.args, *(k.value for k in n.keywords)]
    )


def _format(n, s, c) -> bool:
    if isinstance(n, ast.FormattedValue):
        return n.format_spec is not None and "value" in c.kinds(n.value)
    if (
        isinstance(n, ast.BinOp)
        and isinstance(n.op, ast.Mod)
        and isinstance(n.left, ast.Constant)
        and isinstance(n.left.value, str)
    ):
        return "value" in c.kinds(n.right)
    if isinstance(n, ast.Call) and _call_attr(n) == "format":
        return any("value" in c.kinds(a) for a in n.args)
    return False


def _data_size(n, s, c) -> bool:
    if isinstance(n, ast.Call) and _call_attr(n) in _DATA_SIZE:
        recv = [] if _is_module(n.func.value) else [n.func.value]
        return any("value" in c.kinds(a) for a in [*recv, *n.args])
    if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load):
        return "mask" in c.kinds(n.slice)
    return False


def _is_module(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id in _TORCH_ROOTS | {"np", "numpy"}


def _inplace(n, s, c) -> bool:
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
        a = n.func.attr
        if a.endswith("_") and not a.endswith("__") and not a.startswith("_"):
            return bool(c.kinds(n.func.value) & {"input", "view"})
    if isinstance(s, ast.Assign | ast.AugAssign) and n is s:
        targets = s.targets if isinstance(s, ast.Assign) else [s.target]
        return any(
            isinstance(t, ast.Subscript) and "input" in c.kinds(t.value)
            for t in targets
        )
    return False


def _out_kwarg(n, s, c) -> bool:
    return isinstance(n, ast.Call) and any(k.arg == "out" for k in n.keywords)


def _iterate(n, s, c) -> bool:
    if isinstance(n, ast.For) and n is s:
        return _bare(c.kinds(n.iter))
    if isinstance(n, ast.comprehension):
        return _bare(c.kinds(n.iter))
    if isinstance(n, ast.Starred) and isinstance(n.ctx, ast.Load):
        return _bare(c.kinds(n.value))
    if isinstance(n, ast.Call) and _call_name(n) in _ITERATING:
        return any(_bare(c.kinds(a)) for a in n.args)
    return False  # `a, b = proxy` is fine: fx unpacks by the bytecode's count


def _len(n, s, c) -> bool:
    return (
        isinstance(n, ast.Call)
        and _call_name(n) == "len"
        and bool(n.args)
        and _bare(c.kinds(n.args[0]))
    )


def _range_size(n, s, c) -> bool:
    return (
        isinstance(n, ast.Call)
        and _call_name(n) == "range"
        and any("size" in c.kinds(a) for a in n.args)
    )


def _dynamic_branch(n, s, c) -> bool:
    return c.ctx.dynamic_shapes and _branch("size", "value")(n, s, c)


def _isinstance(n, s, c) -> bool:
    return (
        isinstance(n, ast.Call)
        and _call_name(n) == "isinstance"
        and bool(n.args)
        and "value" in c.kinds(n.args[0])
    )


def _try(n, s, c) -> bool:
    return isinstance(n, ast.Try) and n is s and c.func.name == "forward"


def _generator(n, s, c) -> bool:
    return isinstance(n, ast.Yield | ast.YieldFrom) and c.func.name == "forward"


def _state_write(n, s, c) -> bool:
    return (
        isinstance(s, ast.Assign)
        and n is s
        and c.func.name == "forward"
        and any(
            isinstance(t, ast.Attribute)
            and isinstance(t.value, ast.Name)
            and t.value.id == "self"
            for t in s.targets
        )
        and "value" in c.kinds(s.value)
    )


def _leaf_call(n, s, c) -> bool:
    if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)):
        return False
    f = n.func
    if not (isinstance(f.value, ast.Name) and f.value.id == "self"):
        return False
    built = c.ctx.attr_classes(c.func).get(f.attr)
    return built is not None and built[0] == "torch" and built[1] in _LEAF_MODULES


CONSTRUCTS: dict[str, Callable] = {
    "branch-on-value": _branch("value"),
    "branch-on-size": _branch("size", "value"),
    "branch-on-dynamic-size": _dynamic_branch,
    "item-on-value": _item,
    "numpy-on-value": _numpy,
    "format-value": _format,
    "data-size-op": _data_size,
    "inplace-on-input": _inplace,
    "out-kwarg": _out_kwarg,
    "iterate-value": _iterate,
    "len-of-value": _len,
    "range-on-size": _range_size,
    "isinstance-on-value": _isinstance,
    "try-in-forward": _try,
    "generator-in-forward": _generator,
    "state-write": _state_write,
    "leaf-module-call": _leaf_call,
}


def _line(node: ast.AST, stmt: ast.stmt) -> int:
    line = getattr(node, "lineno", stmt.lineno)
    return line if isinstance(node, ast.expr) else stmt.lineno


def _union(ks) -> Kinds:
    out: set[str] = set()
    for k in ks:
        out |= k
    return frozenset(out)


def _scalar(k: Kinds, keep_mask: bool) -> Kinds:
    """An op's result: tensors stay tensors, sizes sizes; no container, no input."""
    out = k & {"value", "size", "pyvalue", "param", "ndarray"}
    return frozenset(out | (k & {"mask"} if keep_mask else set()))


def _element(k: Kinds) -> Kinds:
    """What iterating a value gives: a container's elements, a tensor's rows."""
    return frozenset(k - {"container", "mask", "dict"})
