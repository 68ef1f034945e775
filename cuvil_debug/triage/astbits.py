"""Small AST readers the line facts share (linefacts.py, valuefacts.py)."""

from __future__ import annotations

import ast

_NON_TORCH = {"np", "numpy", "math", "scipy", "random", "statistics"}


_CASTS = {"int", "float", "bool", "complex"}


# a tensor's metadata that fx cannot read from its Proxy (it records an attribute node)
_TENSOR_META = {"device", "dtype", "is_cuda", "layout", "requires_grad", "is_sparse"}


def _attr(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _shape_expr(node: ast.AST) -> bool:
    """`x.shape`, `x.size()`, and slices or indexes of them."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Call):
        node = node.func
    return isinstance(node, ast.Attribute) and node.attr in {"shape", "size"}


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


# torch functions whose first argument is a sequence of tensors (not a tensor)
_TENSOR_SEQ_FUNCS = {
    "cat",
    "concat",
    "concatenate",
    "stack",
    "hstack",
    "vstack",
    "dstack",
    "column_stack",
    "row_stack",
}


def tensor_seq_param(fn: ast.FunctionDef, name: str) -> set[str]:
    """{"param-seq"} when `fn` hands its parameter `name` to `torch.cat(name)` and
    the like: the code takes it for a sequence of tensors, whatever its annotation
    says (so a Proxy there stands for a container argument)."""
    for node in ast.walk(fn):
        if (
            _attr(node) in _TENSOR_SEQ_FUNCS
            and _base(node) == "torch"
            and node.args
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id == name
        ):
            return {"param-seq"}
    return set()
