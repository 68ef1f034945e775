"""The AST facts a source line can have (LINE_FACTS): what a statement does, as data
that the patterns (patterns.py), the failing-line finder and the root-cause ranking
read.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .astbits import (
    _NON_TORCH,
    _attr,
    _base,
    _func_name,
    _shape_expr,
)
from .valuefacts import VALUE_FACTS, meta_read, value_cast

__all__ = ["LINE_FACTS", "line_facts", "shape_bases", "state_write"]

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


_SHAPE = {"shape", "size", "numel"}  # not the rank (`dim`, `ndim`): metadata


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
    "unsqueeze",
    "squeeze",
}


_ITEM = {"item", "tolist"}


# builtins that walk their (first) argument
_ITERATING = {
    "list",
    "tuple",
    "set",
    "sorted",
    "reversed",
    "enumerate",
    "zip",
    "map",
    "sum",
    "max",
    "min",
    "any",
    "all",
    "iter",
}


def _shape_iterate(stmt: ast.AST, node: ast.AST) -> bool:
    if isinstance(stmt, ast.For | ast.AsyncFor) and _shape_expr(stmt.iter):
        return True
    if isinstance(node, ast.comprehension) and _shape_expr(node.iter):
        return True
    if isinstance(node, ast.Starred) and _shape_expr(node.value):  # (*x.shape, h)
        return True
    if isinstance(node, ast.Assign) and _shape_expr(node.value):  # b, c = x.shape
        return any(isinstance(t, ast.Tuple | ast.List) for t in node.targets)
    if isinstance(node, ast.Call) and _func_name(node) == "len":
        return any(_shape_expr(a) for a in node.args)
    if isinstance(node, ast.Call) and _func_name(node) in _ITERATING:
        # `list(x.shape)`, `zip(x.shape, sizes)`, `max(x.shape[1:])`: Python walks it
        several = _func_name(node) in {"zip", "map"}  # else one iterable argument
        return (several or len(node.args) == 1) and any(map(_shape_expr, node.args))
    if (
        isinstance(node, ast.Call) and _base(node) in _NON_TORCH
    ):  # np.ceil(x.shape[0] / v)
        return any(_shape_expr(n) for a in node.args for n in ast.walk(a))
    return False


def tensor_type_check(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")
    if "is_tensor" in name.lower():  # torch.is_tensor, KORNIA_CHECK_IS_TENSOR
        return True
    if name != "isinstance" or len(node.args) != 2:
        return False
    return any(
        (isinstance(t, ast.Name) and t.id.endswith("Tensor"))
        or (isinstance(t, ast.Attribute) and t.attr.endswith("Tensor"))
        for t in ast.walk(node.args[1])
    )


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
    """`x[x > 0]`, `x[~mask]`, `x[:, a & b]`: an index that is a boolean mask."""
    if not isinstance(node, ast.Subscript):
        return False
    index = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    return any(
        isinstance(i, ast.Compare)
        or (isinstance(i, ast.UnaryOp) and isinstance(i.op, ast.Invert))
        or (isinstance(i, ast.BinOp) and isinstance(i.op, ast.BitAnd | ast.BitOr))
        for i in index
    )


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
    # `.item()`, `.tolist()`, `int(t)`: not a cast of a size or of configuration
    "item": lambda s, n: _attr(n) in _ITEM or value_cast(n),
    # `.item()` / `.tolist()` themselves (not a cast, which may be of a size read
    # on an earlier line: `int(np.ceil(h / 8) * 8 - h)` with `h, w = x.size()[-2:]`)
    "item-call": lambda s, n: _attr(n) in _ITEM,
    "shape-read": lambda s, n: (
        (isinstance(n, ast.Attribute) and n.attr in _SHAPE) or _func_name(n) == "len"
    ),
    # Python walking a size: `for d in x.shape[2:]`, `len(t.shape)`,
    # `b, c = x.shape`, `np.array(x.shape[2:])` (not `len(x)`: that is the tensor)
    "shape-iterate": lambda s, n: _shape_iterate(s, n),
    # `(*shape, h)` / `b, c = shape`: Python unpacks a value
    "unpack": lambda s, n: (
        isinstance(n, ast.Starred)
        or (
            isinstance(n, ast.Assign)
            and any(isinstance(t, ast.Tuple | ast.List) for t in n.targets)
        )
    ),
    # `x.shape` / `x.size(...)` itself (`shape-read` also counts `len(x)`)
    "shape-attr": lambda s, n: (
        (isinstance(n, ast.Attribute) and n.attr == "shape") or _attr(n) == "size"
    ),
    "range": lambda s, n: _func_name(n) == "range",
    # `if v.device.type != "meta"` / `if x.dtype == torch.half`: a branch on metadata
    "tensor-meta": lambda s, n: meta_read(n),
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
        or _attr(n) == "isinstance"  # torch.jit.isinstance(x, dict[str, Tensor])
        or (
            isinstance(n, ast.Compare)
            and any(_func_name(c) == "type" for c in [n.left, *n.comparators])
        )
    ),
    # `isinstance(x, Tensor)` / `torch.is_tensor(x)`: False for fx's Proxy, so the
    # tracer runs the branch for non-tensors
    "tensor-type-check": lambda s, n: tensor_type_check(n),
    # `x.size(0) if isinstance(x, Tensor) else len(x)`: the test and the path it
    # picks for a Proxy (the non-tensor arm) on the failing line itself
    "type-test-expr": lambda s, n: (
        isinstance(n, ast.IfExp) and any(map(tensor_type_check, ast.walk(n.test)))
    ),
    # `x.ndim` / `x.dim()`: the tensor's rank (fx: a Proxy; not a size)
    "rank-read": lambda s, n: (
        (isinstance(n, ast.Attribute) and n.attr == "ndim")
        or _attr(n) in {"dim", "ndimension"}
    ),
    "len-call": lambda s, n: _func_name(n) == "len",
    # training inside forward(): `loss.backward()`, `torch.autograd.grad(...)`
    "autograd": lambda s, n: (
        isinstance(n, ast.Call)
        and (
            _attr(n) == "backward"
            or _func_name(n) == "grad"
            and "autograd" in ast.unparse(n.func)
        )
    ),
    # `self.forward = module.forward`, `setattr(module, "forward", wrapper)`
    "forward-assign": lambda s, n: (
        (
            isinstance(s, ast.Assign)
            and n is s
            and any(getattr(t, "attr", None) == "forward" for t in s.targets)
        )
        or (
            _func_name(n) == "setattr"
            and len(n.args) > 1
            and getattr(n.args[1], "value", None) == "forward"
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

LINE_FACTS.update(VALUE_FACTS)


def shape_bases(parts: list[ast.AST]) -> set[str]:
    """The names whose size the statement reads: `x` in `x.shape[2:]`, `x.size(1)`."""
    out = set()
    for node in (n for p in parts for n in ast.walk(p)):
        if isinstance(node, ast.Call):
            node = node.func
        if isinstance(node, ast.Attribute) and node.attr in {"shape", "size"}:
            if isinstance(node.value, ast.Name):
                out.add(node.value.id)
    return out


def state_write(stmt: ast.AST) -> bool:
    """`self.cache = h`, `self.steps += 1`, `w.data = w.data * mask`: an assignment to
    module state or to a tensor's `.data` (outside __init__, the caller checks)."""
    targets = getattr(stmt, "targets", None) or [getattr(stmt, "target", None)]
    for t in targets:
        if not isinstance(t, ast.Attribute):
            continue
        if t.attr == "data":
            return True
        while isinstance(t, ast.Attribute):
            t = t.value
        if isinstance(t, ast.Name) and t.id == "self":
            return True
    return False


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
