"""The triage knowledge as data: AST facts a line can have, the evidence patterns that
vote for a category, and the facts that mark a root cause (the signals read from
messages and the library hints are in messages.py).

Nothing here decides anything; classify.py and rootcause.py interpret these tables.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "LINE_FACTS",
    "PATTERNS",
    "ROOT_FACTS",
    "Pattern",
    "line_facts",
]


_REDUCTIONS = {
    "sum",
    "mean",
    "max",
    "min",
    "any",
    "all",
    "norm",
    "argmax",
    "argmin",
    "std",
    "var",
    "prod",
    "count_nonzero",
    "amax",
    "amin",
    "logsumexp",
}


_DATA_SIZE = {
    "nonzero",
    "masked_select",
    "unique",
    "unique_consecutive",
    "repeat_interleave",
    "argwhere",
    "nonzero_static",
}


_DTYPE = {
    "long",
    "int",
    "float",
    "double",
    "half",
    "bool",
    "bfloat16",
    "short",
    "byte",
    "type",
}


_SHAPE = {"shape", "size", "dim", "numel", "ndim"}


_RESHAPE = {
    "view",
    "reshape",
    "expand",
    "repeat",
    "permute",
    "transpose",
    "flatten",
    "unflatten",
    "split",
    "chunk",
    "narrow",
}


_NON_TORCH = {"np", "numpy", "math", "scipy", "random", "statistics"}


_ITEM = {"item", "tolist"}


_CASTS = {"int", "float", "bool", "complex"}


def _attr(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _func_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id
    return None


def _base(node: ast.AST) -> str | None:
    """`np` in `np.sqrt(x)` and `np.linalg.norm(x)`."""
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    while isinstance(f, ast.Attribute):
        f = f.value
    return f.id if isinstance(f, ast.Name) and f is not node.func else None


def _has_dtype_kw(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and any(k.arg == "dtype" for k in node.keywords)


def _is_to_dtype(node: ast.AST) -> bool:
    return _attr(node) == "to" and any(
        isinstance(a, ast.Attribute)
        and isinstance(a.value, ast.Name)
        and a.value.id == "torch"
        for a in node.args
    )


def _bool_mask(node: ast.AST) -> bool:
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Compare)


def _unpack(stmt: ast.AST) -> bool:
    return (
        isinstance(stmt, ast.Assign)
        and any(isinstance(t, ast.Tuple | ast.List) for t in stmt.targets)
        and not isinstance(stmt.value, ast.Tuple | ast.List)
    )


def _starred_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and any(
        isinstance(a, ast.Starred) for a in node.args
    )


def _format(node: ast.AST) -> bool:
    if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
        return True
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Mod)
        and isinstance(node.left, ast.Constant)
        and isinstance(node.left.value, str)
    )


def _module_init(stmt: ast.AST) -> bool:
    return (
        isinstance(stmt, ast.Assign)
        and isinstance(stmt.value, ast.Call)
        and any(isinstance(t, ast.Attribute) for t in stmt.targets)
        and any(
            isinstance(a, ast.Constant | ast.Name | ast.BinOp | ast.Attribute)
            for a in stmt.value.args
        )
    )


def _object_construct(node: ast.AST) -> bool:
    name = _func_name(node)
    return bool(name) and name[0].isupper() and name not in {"Tensor"}


def _inplace(stmt: ast.AST, node: ast.AST) -> bool:
    attr = _attr(node)
    if attr and attr.endswith("_") and not attr.endswith("__"):
        return True
    if isinstance(node, ast.Call) and any(k.arg == "out" for k in node.keywords):
        return True
    return isinstance(stmt, ast.AugAssign | ast.Assign) and isinstance(
        getattr(stmt, "target", None)
        or (stmt.targets[0] if getattr(stmt, "targets", None) else None),
        ast.Subscript,
    )


# fact name -> predicate(statement, sub-node of its header); a fact holds when any
# sub-node matches.
LINE_FACTS: dict[str, Callable[[ast.AST, ast.AST], bool]] = {
    "branch": lambda s, n: (
        isinstance(s, ast.If | ast.While | ast.Assert) or isinstance(n, ast.IfExp)
    ),
    "reduction": lambda s, n: _attr(n) in _REDUCTIONS,
    "tensor-compare": lambda s, n: (
        isinstance(n, ast.Compare)
        and not any(
            isinstance(o, ast.Is | ast.IsNot | ast.In | ast.NotIn) for o in n.ops
        )
    ),
    "is-none-test": lambda s, n: (
        isinstance(n, ast.Compare)
        and any(isinstance(o, ast.Is | ast.IsNot) for o in n.ops)
    ),
    "item": lambda s, n: (
        _attr(n) in _ITEM
        or (
            _func_name(n) in _CASTS
            and bool(n.args)
            and not isinstance(n.args[0], ast.Constant)
        )
    ),
    "shape-read": lambda s, n: (
        (isinstance(n, ast.Attribute) and n.attr in _SHAPE) or _func_name(n) == "len"
    ),
    "range": lambda s, n: _func_name(n) == "range",
    "data-size": lambda s, n: _attr(n) in _DATA_SIZE or _bool_mask(n),
    "dtype-set": lambda s, n: _attr(n) in _DTYPE or _has_dtype_kw(n) or _is_to_dtype(n),
    "reshape": lambda s, n: _attr(n) in _RESHAPE,
    "iterate": lambda s, n: (
        (isinstance(s, ast.For) and _func_name(s.iter) != "range")
        or isinstance(n, ast.comprehension)
        or _unpack(s)
        or _starred_call(n)
    ),
    "numpy": lambda s, n: _base(n) in _NON_TORCH or _attr(n) == "numpy",
    "inplace": _inplace,
    "format": lambda s, n: _format(n) or _attr(n) == "format",
    "module-init": lambda s, n: _module_init(s),
    "object-construct": lambda s, n: _object_construct(n),
    "return": lambda s, n: isinstance(s, ast.Return),
    "self-call": lambda s, n: (
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == "self"
    ),
    "torch-call": lambda s, n: _base(n) in {"torch", "F", "nn"},
    # isinstance(x, torch.Tensor) / type(x) is torch.Tensor: false on a tracer's Proxy
    "type-check": lambda s, n: (
        _func_name(n) in {"isinstance", "issubclass"}
        or (
            isinstance(n, ast.Compare)
            and any(_func_name(c) == "type" for c in [n.left, *n.comparators])
        )
    ),
    # `self.head_dim = hidden // heads` in __init__: a size computed from arguments
    "size-arith": lambda s, n: (
        isinstance(s, ast.Assign)
        and any(isinstance(t, ast.Attribute) for t in s.targets)
        and isinstance(s.value, ast.BinOp)
        and n is s
    ),
}


def line_facts(stmt: ast.AST, parts: list[ast.AST]) -> set[str]:
    """Every LINE_FACTS name that holds for the statement's header `parts`."""
    nodes = [n for p in parts for n in ast.walk(p)] or [stmt]
    return {
        name
        for name, pred in LINE_FACTS.items()
        if any(_safe(pred, stmt, n) for n in nodes)
    }


def _safe(pred, stmt, node) -> bool:
    try:
        return bool(pred(stmt, node))
    except (AttributeError, IndexError, TypeError):
        return False


@dataclass(frozen=True)
class Pattern:
    """Votes `weight` for `category` when all `signals` are present (and none of
    `unless`). Signal families: exc:Type, msg:signal, ast:fact (failing line),
    flow:fact (lines the offending value came from), param:kind, eager:ok|fail,
    raise:user|lib|cuvil, io:non-tensor-input|container-input."""

    category: str
    signals: frozenset[str]
    weight: float
    unless: frozenset[str] = frozenset()


def _p(category: str, signals: str, weight: float, unless: str = "") -> Pattern:
    return Pattern(
        category, frozenset(signals.split()), weight, frozenset(unless.split())
    )


PATTERNS: list[Pattern] = [
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
    _p("non-tensor-argument", "msg:proxy-control-flow flow:param-flag", 5.0),
    _p("non-tensor-argument", "msg:proxy-control-flow flow:param-optional", 5.0),
    _p("non-tensor-argument", "flow:param-kwargs", 4.0),
    _p("non-tensor-argument", "flow:param-container", 4.0),
    _p("non-tensor-argument", "msg:missing-input", 5.0),
    _p("non-tensor-argument", "msg:shapeprop eager:ok flow:param-optional", 5.0),
    _p("non-tensor-argument", "msg:shapeprop eager:ok flow:param-kwargs", 5.0),
    _p("non-tensor-argument", "msg:proxy-as-value flow:param-flag", 5.0),
    _p("non-tensor-argument", "msg:container-method", 3.0),
    # fx traces a None / flag / container parameter as a Proxy; export passes the
    # value itself, and Cuvil refusing it is an input of the wrong type
    _p("non-tensor-argument", "msg:input-builtin", 3.0, "fe:export"),
    _p("non-tensor-argument", "io:container-input", 2.0, "fe:export"),
    _p("unsupported-io-type", "msg:input-none fe:export", 5.0),
    _p("non-tensor-argument", "msg:input-builtin fe:export", 3.0, "msg:input-none"),
    _p("non-tensor-argument", "sig:defaults-traced eager:ok", 2.0),
    _p("non-tensor-argument", "sig:kwargs-traced msg:proxy-iter", 4.5),
    _p("non-tensor-argument", "sig:kwargs-traced msg:proxy-setitem", 3.0),
    _p("proxy-iteration", "msg:proxy-iter", 4.0),
    _p("proxy-iteration", "msg:proxy-iter ast:iterate", 2.0),
    _p("proxy-iteration", "msg:proxy-control-flow ast:iterate", 1.0),
    # Python values taken out of tensors
    _p("data-dependent-python-value", "msg:proxy-as-value flow:item", 4.0),
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
    # a guard on an unbacked size (boxes.numel() after a boolean mask)
    _p(
        "dynamic-shape",
        "exc:GuardOnDataDependentSymNode ast:shape-read msg:unbacked-size",
        3.0,
    ),
    _p("data-dependent-python-value", "msg:data-dependent flow:item", 4.0),
    _p("data-dependent-python-value", "msg:unsupported-op flow:item", 4.0),
    _p("data-dependent-python-value", "msg:unsupported-op ast:item", 4.0),
    _p("data-dependent-python-value", "msg:item-op", 4.0),
    _p("non-torch-call", "ast:numpy", 2.5, "eager:fail"),
    _p("non-torch-call", "msg:numpy", 2.5),
    _p("non-torch-call", "op:non-torch", 5.0),
    _p("non-torch-call", "ast:numpy msg:proxy-as-value", 4.0),
    _p("non-torch-call", "msg:proxy-as-value flow:numpy", 2.0),
    _p("unsupported-python-construct", "msg:format", 5.0),
    _p("unsupported-python-construct", "msg:proxy-as-value ast:format", 4.0),
    # an `isinstance`/type check in the model raising on the tracer's stand-in value
    _p(
        "unsupported-python-construct", "msg:traced-type raise:user-raise eager:ok", 5.0
    ),
    # a try/except around traced code: the tracer follows one path and cannot recover
    _p("unsupported-python-construct", "ast:in-try eager:ok", 3.0),
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
    _p("undefined-name", "msg:call-signature eager:fail", 5.0),
    _p(
        "unsupported-op",
        "exc:UnsupportedOpError msg:unsupported-op",
        4.0,
        "msg:inplace flow:item ast:item msg:item-op op:non-torch op:user-object",
    ),
    # inputs and outputs that are not tensors
    _p("unsupported-io-type", "msg:output-not-tensor", 5.0),
    _p("unsupported-io-type", "op:user-object", 5.0),
    _p("unsupported-io-type", "msg:unsupported-arg-type", 5.0),
    _p("unsupported-io-type", "msg:input-not-tensor", 4.0, "msg:input-builtin"),
    _p("unsupported-io-type", "io:non-tensor-input", 3.0),
    # the tools, not the model
    _p("capture-limitation", "raise:lib eager:ok", 3.0),
    _p("capture-limitation", "msg:fx-code-patch eager:ok", 6.0),
    # a dynamo graph break in code that runs eagerly (strict export, torch.compile);
    # its kind decides when it is a known one (gb: patterns)
    _p("capture-limitation", "exc:Unsupported eager:ok", 2.0),
    _p("data-dependent-control-flow", "gb:data-dependent-branching", 5.0),
    _p("dynamic-shape", "gb:dynamic-shape-operator", 5.0),
    # a branch on a size (x.shape unpacked into the tested name) under fx
    _p("dynamic-shape", "msg:proxy-control-flow near:shape-read", 6.0, "near:item"),
    _p(
        "capture-limitation",
        "raise:lib eager:ok msg:proxy-control-flow",
        3.0,
        "flow:param-flag flow:param-optional",
    ),
    _p("compiler-internal-error", "raise:cuvil eager:ok", 5.0),
    _p("compiler-internal-error", "exc:VerifyError", 6.0),
    _p("compiler-internal-error", "exc:PassError", 6.0),
    _p("compiler-internal-error", "exc:CodegenError", 6.0),
    _p("compiler-internal-error", "msg:cuvil-bug eager:ok", 4.0),
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
    "dynamic-shape": {"data-size": 4, "shape-read": 3, "range": 1},
    "proxy-iteration": {"iterate": 4, "failing": 1, "type-check": 3},
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
    "inplace-mutation": {"inplace": 4, "failing": 2},
    "unsupported-python-construct": {"format": 4, "failing": 2, "type-check": 4},
    "undefined-name": {"failing": 4},
    "unsupported-op": {"failing": 4, "torch-call": 1},
    "capture-limitation": {"failing": 4, "decorator": 2},
    "compiler-internal-error": {"failing": 4},
}
