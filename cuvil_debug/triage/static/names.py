"""Names a model defines: self attributes of a class and its bases, module-level and
local bindings (for undefined-name)."""

from __future__ import annotations

import ast
import importlib.util
from functools import lru_cache
from pathlib import Path

from ..source import index_file
from .program import ClassRef, Program, _class_in
from .rules import _BUILTINS, _call_attr, _call_name


def _attrs_of(prog: Program, cls: ClassRef, seen: set) -> set[str] | None:
    if (cls.index.path, cls.name) in seen:
        return set()
    seen.add((cls.index.path, cls.name))
    out: set[str] = set()
    for base in cls.node.bases:
        ref = prog.resolve_class(cls.index, base)
        if isinstance(ref, ClassRef):
            more = _attrs_of(prog, ref, seen)
            if more is None:
                return None
            out |= more
        elif isinstance(ref, tuple) and ref[1] == "Module":
            out |= _module_attrs()
        else:
            return None
    for node in ast.walk(cls.node):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            out.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)  # class-level assignments
        elif isinstance(node, ast.Call) and node.args:
            first = node.args[0] if _call_attr(node) else (node.args[1:2] or [None])[0]
            if (
                (_call_attr(node) or _call_name(node) or "").startswith(
                    ("register_", "add_module", "setattr")
                )
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
            ):
                out.add(first.value)
    return out


@lru_cache(maxsize=1)
def _module_attrs() -> frozenset[str]:
    """nn.Module's methods and attributes, read from torch's source (not imported)."""
    spec = importlib.util.find_spec("torch")
    names = {"training", "forward", "__class__", "__dict__"}
    if spec and spec.submodule_search_locations:
        path = Path(next(iter(spec.submodule_search_locations)), "nn/modules/module.py")
        index = index_file(str(path))
        node = _class_in(index, "Module") if index else None
        if node is not None:
            for sub in ast.walk(node):
                if isinstance(sub, ast.FunctionDef):
                    names.add(sub.name)
                elif isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store):
                    names.add(sub.attr)
                elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names.add(sub.id)
    return frozenset(names)


@lru_cache(maxsize=4096)
def _known_names(path: str, func_id: int) -> frozenset[str]:
    """Names visible in a function: module-level names, builtins, every name bound in
    an enclosing function (parameters, assignments, loops, comprehensions, imports)."""
    index = index_file(path)
    names = set(_BUILTINS)
    if index is None:
        return frozenset(names)
    for node in index.tree.body:
        names |= _bound(node, top=True)
    for node in ast.walk(index.tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return frozenset(names | {"*"})  # cannot know: treat all as known
    for fn in ast.walk(index.tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            inner = {id(n) for n in ast.walk(fn)}
            if func_id in inner:
                names |= _bound(fn, top=False)
    return frozenset(names)


def _bound(node: ast.AST, top: bool) -> set[str]:
    out = set()
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        out.add(node.name)
        if top:
            return out
    for sub in ast.walk(node) if not top or not isinstance(node, ast.ClassDef) else []:
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store | ast.Del):
            out.add(sub.id)
        elif isinstance(sub, ast.arg):
            out.add(sub.arg)
        elif isinstance(sub, ast.Import | ast.ImportFrom):
            out |= {(a.asname or a.name).split(".")[0] for a in sub.names}
        elif isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(sub.name)
        elif isinstance(sub, ast.ExceptHandler) and sub.name:
            out.add(sub.name)
        elif isinstance(sub, ast.Global | ast.Nonlocal):
            out |= set(sub.names)
    return out
