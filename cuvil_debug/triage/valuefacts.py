"""Line facts about *which value* a line's Python applies to (issue 16, zoo7 round):
a size read from a traced tensor, a tensor's metadata, or configuration. They let the
patterns decide by the operand of the failing construct rather than by the words of
the error (the mechanisms zoo7's misses had in common: size arithmetic, a truth test
of `.requires_grad`, a config value passed through `int()`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .astbits import (
    _CASTS,
    _NON_TORCH,
    _TENSOR_META,
    _attr,
    _base,
    _func_name,
    _shape_expr,
)

__all__ = ["VALUE_FACTS", "meta_read", "value_cast"]


# tensor metadata asked through a method: a Proxy call under fx, not a bool
_META_METHODS = {
    "is_floating_point",
    "is_complex",
    "is_contiguous",
    "is_signed",
    "is_pinned",
    "get_device",
}


# metadata attributes beyond _TENSOR_META that are read the same way
_META_ATTRS = _TENSOR_META | {
    "is_leaf",
    "grad_fn",
    "is_quantized",
    "is_meta",
    "is_nested",
    "is_mkldnn",
    "is_xpu",
    "is_mps",
}


def meta_read(node: ast.AST) -> bool:
    """`x.requires_grad`, `x.device`, `x.is_floating_point()` (not `torch.float`)."""
    if _attr(node) in _META_METHODS:
        return True
    # `x.type() == "torch.cuda.HalfTensor"`: the type string (with an argument,
    # `x.type(torch.float16)`, it is a cast)
    if _attr(node) == "type" and not (node.args or node.keywords):
        return True
    return (
        isinstance(node, ast.Attribute)
        and node.attr in _META_ATTRS
        and not (isinstance(node.value, ast.Name) and node.value.id == "torch")
    )


# Python arithmetic and conversions that need a real number, and torch's size
# utilities that need ints: given a traced size, each fails under fx
_SIZE_BUILTINS = _CASTS | {"round", "divmod", "abs", "pow", "max", "min", "sum"}
_SIZE_UTILS = {"broadcast_shapes", "Size", "_broadcast_shapes", "prod"}


def _reads_shape(node: ast.AST) -> bool:
    return any(_shape_expr(n) for n in ast.walk(node))


def shape_math(node: ast.AST) -> bool:
    """`float(k.size(-1))`, `divmod(x.shape[1], p)`, `math.ceil(x.shape[-1] / h)`,
    `torch.broadcast_shapes(a.shape, b.shape)`, `torch.Size(x.shape[:-1])`: Python
    (or a torch size utility) computing with a size read on this line."""
    if not isinstance(node, ast.Call) or not node.args:
        return False
    f = node.func
    name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")
    wants_number = (
        name in _SIZE_BUILTINS or name in _SIZE_UTILS or _base(node) in _NON_TORCH
    )
    return wants_number and any(_reads_shape(a) for a in node.args)


def _seq(node: ast.AST) -> bool:
    """A sequence of sizes: `x.shape`, `x.size()`, `x.shape[a:b]` (not `x.shape[0]`)."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Slice) and _shape_expr(node.value)
    if isinstance(node, ast.Call):
        return _attr(node) == "size" and not node.args
    return isinstance(node, ast.Attribute) and node.attr == "shape"


def shape_seq(stmt: ast.AST, node: ast.AST) -> bool:
    """The line hands on a sequence of sizes as a value: `s = x.shape[:-1]`,
    `helper(t, x.shape[:-1])`, `d.expand(c.shape[:-1])`."""
    if isinstance(node, ast.Assign) and _seq(node.value):
        return True
    return isinstance(node, ast.Call) and any(_seq(a) for a in node.args)


def shape_arg(node: ast.AST) -> bool:
    """A size read handed to a call as one argument: `f(batch_size=x.shape[0])`,
    `g(x.size(1))` (code that may need it as a Python int)."""
    if not isinstance(node, ast.Call):
        return False
    args = [*node.args, *(k.value for k in node.keywords)]
    return any(
        (isinstance(a, ast.Subscript) and _shape_expr(a) and not _seq(a))
        or (_attr(a) == "size" and a.args)
        for a in args
    )


def _first_asked(test: ast.AST) -> ast.AST:
    """The operand of `a or b` / `a and b` whose truth value Python asks first,
    skipping module configuration (`self.training and x.requires_grad`)."""
    while isinstance(test, ast.BoolOp):
        rest = [v for v in test.values if not _config(v)]
        test = rest[0] if rest else test.values[0]
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return test


def _truth_asked(stmt: ast.AST, node: ast.AST) -> list[ast.AST]:
    """The expressions whose truth value this sub-node asks for."""
    if isinstance(stmt, ast.If | ast.While | ast.Assert) and node is stmt.test:
        return [node]
    if isinstance(node, ast.IfExp):
        return [node.test]
    if isinstance(node, ast.comprehension):
        return list(node.ifs)
    if isinstance(node, ast.Lambda):  # filter(lambda p: p.requires_grad, ps)
        return [node.body]
    if _func_name(node) in {"bool", "any", "all", "filter"}:
        return list(node.args)
    return []


def meta_test(stmt: ast.AST, node: ast.AST) -> bool:
    """Python asks the truth of a tensor's metadata: `if x.requires_grad or flag:`,
    `[o for o in outs if o.requires_grad]`, `if not x.is_floating_point():`."""
    asked = [_first_asked(t) for t in _truth_asked(stmt, node)]
    return any(meta_read(n) for t in asked for n in ast.walk(t))


def _config(node: ast.AST) -> bool:
    """Module configuration or constants only: `self.rate * self.seconds`, `2.0`."""
    names = [n for n in ast.walk(node) if isinstance(n, ast.Name)]
    calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
    return not calls and all(n.id == "self" for n in names)


def value_cast(node: ast.AST) -> bool:
    """`int(t)`, `float(score)`: a cast that may take a number out of a tensor; not
    one of a size (`float(k.size(-1))`) or of configuration (`int(self.a * self.b)`)."""
    if _func_name(node) not in _CASTS or not node.args:
        return False
    arg = node.args[0]
    return not (isinstance(arg, ast.Constant) or _reads_shape(arg) or _config(arg))


def py_random(node: ast.AST) -> bool:
    """`random.randint(0, self.max_shift)`, `random.random()`: a stdlib draw of a Python
    value from constants or configuration (on a tensor's values it is a non-torch
    call): dynamo must make it a graph input, or marks it skipped."""
    if _base(node) != "random" or not isinstance(node.func.value, ast.Name):
        return False
    args = [*node.args, *(k.value for k in node.keywords)]
    return all(_config(a) for a in args)


VALUE_FACTS: dict[str, Callable[[ast.AST, ast.AST], bool]] = {
    "shape-math": lambda s, n: shape_math(n),
    "shape-seq": shape_seq,
    "shape-arg": lambda s, n: shape_arg(n),
    "meta-test": meta_test,
    "py-random": lambda s, n: py_random(n),
}
