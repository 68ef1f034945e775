"""The entry of a model file, read statically: the class Model() builds, forward(), and
the kinds of the example inputs."""

from __future__ import annotations

import ast

from ..rootcause import param_kinds
from ..source import FileIndex, Func, index_file
from .program import ClassRef, Program
from .rules import NONE, Kinds
from .walker import _non_tensor, _return_parts


# ---- the entry: spec -> class, forward, example inputs ------------------------------
class StaticError(Exception):
    pass


_SELF_RETURNING = {
    "eval",
    "train",
    "to",
    "float",
    "double",
    "half",
    "cpu",
    "requires_grad_",
}


def _built(factory: ast.FunctionDef, value: ast.AST | None) -> ast.Call | None:
    """The constructor call a factory returns: `Cls(...)`, `Cls(...).eval()`, or a
    local name assigned from one (`model = Cls(cfg); return model`)."""
    if isinstance(value, ast.Name):
        assigned = [
            n.value
            for n in ast.walk(factory)
            if isinstance(n, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == value.id for t in n.targets)
        ]
        value = assigned[-1] if assigned else None
    while (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in _SELF_RETURNING
        and isinstance(value.func.value, ast.Call)
    ):
        value = value.func.value
    return value if isinstance(value, ast.Call) else None


def _entry_class(prog: Program, index: FileIndex, entry: str) -> ClassRef:
    for node in index.tree.body:
        if isinstance(node, ast.ClassDef) and node.name == entry:
            return ClassRef(index, node)
        if isinstance(node, ast.FunctionDef) and node.name == entry:
            for sub in ast.walk(node):
                call = _built(node, sub.value) if isinstance(sub, ast.Return) else None
                if call is not None:
                    ref = prog.resolve_class(index, call.func)
                    if isinstance(ref, ClassRef):
                        return ref
            raise StaticError(
                f"cannot tell statically which class {entry}() in '{index.path}' builds"
            )
        if isinstance(node, ast.Assign | ast.ImportFrom | ast.Import):
            names = (
                [t.id for t in node.targets if isinstance(t, ast.Name)]
                if isinstance(node, ast.Assign)
                else [a.asname or a.name for a in node.names]
            )
            if entry in names:
                value = (
                    node.value if isinstance(node, ast.Assign) else ast.Name(id=entry)
                )
                ref = prog.resolve_class(index, value)
                if isinstance(ref, ClassRef):
                    return ref
    raise StaticError(
        f"'{index.path}' defines no model: no class or factory '{entry}' "
        f"(define {entry}(nn.Module) or pass --entry NAME)"
    )


def _example_inputs(index: FileIndex) -> list[ast.expr] | None:
    """The expressions example_inputs() returns, when it returns a literal tuple."""
    fn = next(
        (
            n
            for n in index.tree.body
            if isinstance(n, ast.FunctionDef) and n.name == "example_inputs"
        ),
        None,
    )
    if fn is None:
        return None
    rets = [n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value]
    if len(rets) != 1:
        return None
    value = rets[0].value
    return list(value.elts) if isinstance(value, ast.Tuple | ast.List) else [value]


def _input_kind(prog: Program, index: FileIndex, expr: ast.expr) -> str:
    if isinstance(expr, ast.Dict | ast.DictComp | ast.List | ast.ListComp):
        return "container"
    if isinstance(expr, ast.Constant):
        return "builtin"
    if isinstance(expr, ast.Call):
        ref = prog.resolve_class(index, expr.func)
        if isinstance(ref, ClassRef):
            return "object"
        if isinstance(expr.func, ast.Name) and expr.func.id in {"dict", "list"}:
            return "container"
    return "tensor"


def _forward_env(
    prog: Program, forward: Func, inputs: list[ast.expr] | None, index: FileIndex
) -> dict[str, Kinds]:
    params = [p for p in forward.params if p.arg != "self"]
    fed = len(inputs) if inputs is not None else None
    env: dict[str, Kinds] = {}
    for i, p in enumerate(params):
        kinds = param_kinds(p)
        is_fed = fed is None and getattr(p, "_cuvil_default", None) is None
        is_fed = is_fed or (fed is not None and i < fed)
        kind = _input_kind(prog, index, inputs[i]) if inputs and i < fed else "tensor"
        if getattr(p, "_cuvil_kind", "") in {"kwarg", "vararg"}:
            is_fed = False
        if kind == "object":
            prog.add("object-input", forward.file, p.lineno, p)
        elif kind == "container" or "param-container" in kinds:
            prog.add("container-input", forward.file, p.lineno, p)
        if (
            prog.frontend == "fx"
            and kinds
            and (not is_fed or kinds - {"param-optional"})
        ):
            prog.add("non-tensor-param", forward.file, p.lineno, p)
        if is_fed and kind in {"tensor", "container"}:
            env[p.arg] = frozenset(
                {"value", "input"} | ({"container"} if kind == "container" else set())
            )
        elif is_fed and kind == "object":
            env[p.arg] = frozenset({"value", "container"})
        elif prog.frontend == "fx" and not is_fed:
            env[p.arg] = frozenset({"param"})
        else:
            env[p.arg] = NONE
    return env


def _returns(prog: Program, forward: Func) -> None:
    """forward() of the entry returns something that is not tensors."""
    index = index_file(forward.file)
    for stmt in forward.stmts:
        if not isinstance(stmt.node, ast.Return) or stmt.node.value is None:
            continue
        for part in _return_parts(stmt.node.value):
            if _non_tensor(prog, index, part):
                prog.add("object-return", forward.file, stmt.line)
                break
