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


def param_kind(param: ast.arg) -> str:
    """ "vararg" (`*args`), "kwarg" (`**kwargs`) or "" (source.py marks them)."""
    return getattr(param, "_cuvil_kind", "")


PARAM_KINDS = frozenset(
    {"param-flag", "param-optional", "param-container", "param-kwargs", "param-varargs"}
)


def param_kinds(param: ast.arg) -> set[str]:
    """param-flag / -optional / -container / -kwargs, from the annotation and default."""
    ann = ast.unparse(param.annotation) if param.annotation is not None else ""
    default = getattr(param, "_cuvil_default", None)
    kinds = set()
    if param_kind(param) == "kwarg":
        kinds.add("param-kwargs")
    if param_kind(param) == "vararg":  # `*args`: fx traces the tuple as one Proxy
        kinds |= {"param-container", "param-varargs"}
    if "bool" in ann or (
        isinstance(default, ast.Constant) and isinstance(default.value, bool)
    ):
        kinds.add("param-flag")
    if (
        "Optional" in ann
        or "None" in ann
        or (isinstance(default, ast.Constant) and default.value is None)
    ):
        kinds.add("param-optional")
    if any(
        t in ann for t in ("dict", "Dict", "list", "List", "tuple", "Tuple", "Mapping")
    ) or isinstance(default, ast.Tuple | ast.List | ast.Dict):  # `hx=(None, None)`
        kinds.add("param-container")
    if (
        isinstance(default, ast.Constant)
        and isinstance(default.value, int | float | str)
        and not isinstance(default.value, bool)
    ):
        kinds.add("param-flag")
    return kinds
