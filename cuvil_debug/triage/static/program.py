"""The program static triage reads: parsed files, classes and imports, and a library's
class found on disk (find_spec of its top-level package) without importing it."""

from __future__ import annotations

import ast
import importlib.util
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..source import FileIndex, Func, index_file
from .rules import _CONTAINERS, _SPLITTER, STATIC_RULES, StaticRule


# ---- the program: files, classes, imports ------------------------------------------
@dataclass
class Risk:
    construct: str
    file: str
    line: int
    order: int
    param: ast.arg | None = None

    @property
    def rule(self) -> StaticRule:
        return STATIC_RULES[self.construct]


@dataclass
class ClassRef:
    index: FileIndex
    node: ast.ClassDef

    @property
    def name(self) -> str:
        return self.node.name


@dataclass
class Program:
    frontend: str
    dynamic_shapes: bool = False
    user_root: str = "/"  # the model file's folder
    risks: dict[tuple, Risk] = field(default_factory=dict)
    files: dict[str, FileIndex] = field(default_factory=dict)
    memo: dict = field(default_factory=dict)

    def add(self, construct: str, file: str, line: int, param=None) -> None:
        if self.frontend not in STATIC_RULES[construct].frontends:
            return
        key = (construct, file, line)
        if key not in self.risks:
            self.risks[key] = Risk(construct, file, line, len(self.risks), param)

    def use(self, index: FileIndex) -> FileIndex:
        self.files.setdefault(index.path, index)
        return index

    # names, imports and classes ---------------------------------------------------
    def resolve_class(self, index: FileIndex, expr: ast.AST) -> ClassRef | tuple | None:
        """The class an expression names: a ClassRef with source, ("torch", Name)
        for torch classes, None when unknown (memoized)."""
        key = ("class", index.path, ast.dump(expr))
        if key not in self.memo:
            self.memo[key] = self._resolve_class(index, expr)
        return self.memo[key]

    def _resolve_class(self, index: FileIndex, expr: ast.AST):
        if isinstance(expr, ast.Name):
            local = _class_in(index, expr.id)
            if local is not None:
                return ClassRef(index, local)
            imp = _imports(index.path).get(expr.id)
            return self._imported(index, *imp) if imp else None
        if isinstance(expr, ast.Attribute):
            root = expr.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if not isinstance(root, ast.Name):
                return None
            imp = _imports(index.path).get(root.id)
            module = imp[0] if imp and imp[1] is None else (imp and ".".join(imp))
            if module is None:
                return None
            return self._imported(index, module, expr.attr)
        return None

    def _imported(self, index: FileIndex, module: str, name: str | None):
        if name is None or not name[:1].isupper():  # classes are CapWords
            return None
        top = module.lstrip(".").split(".")[0]
        if top == "torch" or (not module.startswith(".") and top in {"nn", "F"}):
            return ("torch", name)
        found = locate_class(module, name, index.path)
        if found is None:
            return None
        path, line = found
        target = index_file(path)
        node = next(
            (
                n
                for n in target.tree.body
                if isinstance(n, ast.ClassDef) and n.name == name
            ),
            None,
        )
        return ClassRef(target, node) if node is not None else None

    def methods(self, cls: ClassRef, seen=None) -> dict[str, Func]:
        """name -> Func, own methods over those of (resolvable) base classes."""
        key = ("methods", cls.index.path, cls.name)
        if seen is None and key in self.memo:
            return self.memo[key]
        top, seen = seen is None, seen or set()
        if (cls.index.path, cls.name) in seen:
            return {}
        seen.add((cls.index.path, cls.name))
        out: dict[str, Func] = {}
        for base in cls.node.bases:
            ref = self.resolve_class(cls.index, base)
            if isinstance(ref, ClassRef):
                out.update(self.methods(ref, seen))
        out.update(
            {
                f.name: f
                for f in cls.index.funcs
                if f.cls == cls.name
                and f.node.lineno >= cls.node.lineno
                and f.node.end_lineno <= cls.node.end_lineno
            }
        )
        self.use(cls.index)
        if top:
            self.memo[key] = out
        return out

    def attr_classes(self, fn: Func) -> dict[str, ClassRef | tuple]:
        """`self.name = SomeClass(...)` in the class of fn -> the class."""
        key = ("attrs", fn.file, fn.cls)
        if key in self.memo:
            return self.memo[key]
        out: dict = {}
        index = self.files.get(fn.file) or index_file(fn.file)
        self.memo[key] = out
        for f in index.funcs:
            if f.cls != fn.cls:
                continue
            for node in ast.walk(f.node):
                if (
                    isinstance(node, ast.Assign)
                    and isinstance(node.value, ast.Call)
                    and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Attribute)
                    and isinstance(node.targets[0].value, ast.Name)
                    and node.targets[0].value.id == "self"
                ):
                    ref = self.resolve_class(index, node.value.func)
                    if isinstance(ref, tuple) and ref[1] in _CONTAINERS:
                        ref = [
                            r
                            for sub in ast.walk(node.value)
                            if isinstance(sub, ast.Call) and sub is not node.value
                            for r in [self.resolve_class(index, sub.func)]
                            if isinstance(r, ClassRef)
                        ] or None
                    if ref is not None:
                        out[node.targets[0].attr] = ref
        return out


def _class_in(index: FileIndex, name: str) -> ast.ClassDef | None:
    return next(
        (n for n in index.tree.body if isinstance(n, ast.ClassDef) and n.name == name),
        None,
    )


@lru_cache(maxsize=256)
def _imports(path: str) -> dict[str, tuple[str, str | None]]:
    """Local name -> (module, attribute or None) for the file's imports."""
    index = index_file(path)
    out: dict[str, tuple[str, str | None]] = {}
    if index is None:
        return out
    for node in ast.walk(index.tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    out[a.asname] = (a.name, None)
                else:
                    out[a.name.split(".")[0]] = (a.name.split(".")[0], None)
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            for a in node.names:
                out[a.asname or a.name] = (module, a.name)
    return out


# ---- finding a library's class without importing it ----------------------------------
def locate_class(module: str, name: str, importer: str) -> tuple[str, int] | None:
    """(file, line) of `class name(` in module's source: relative imports from the
    importing file's folder, a sibling module of the model file, else the installed
    package (importlib.util.find_spec of the top-level name: a search, no import)."""
    here = Path(importer).resolve().parent
    if module.startswith("."):
        level = len(module) - len(module.lstrip("."))
        folder = here
        for _ in range(level - 1):
            folder = folder.parent
        parts = [p for p in module.lstrip(".").split(".") if p]
        return _class_in_module(folder.joinpath(*parts), name) or _search(
            str(_package_top(folder)), name
        )
    sibling = _class_in_module(here.joinpath(*module.split(".")), name)
    if sibling:
        return sibling
    top, *rest = module.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        folder = Path(next(iter(spec.submodule_search_locations)))
        return _class_in_module(folder.joinpath(*rest), name) or _search(
            str(folder), name
        )
    if spec.origin and spec.origin.endswith(".py"):
        return _class_line(spec.origin, name)
    return None


def _package_top(folder: Path) -> Path:
    while (folder.parent / "__init__.py").exists():
        folder = folder.parent
    return folder


def _class_in_module(path: Path, name: str) -> tuple[str, int] | None:
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            found = _class_line(str(candidate), name)
            if found:
                return found
    return None


def _class_line(path: str, name: str) -> tuple[str, int] | None:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = re.search(rf"^class {re.escape(name)}\b", text, re.M)
    return (path, text.count("\n", 0, m.start()) + 1) if m else None


@lru_cache(maxsize=64)
def _py_files(folder: str) -> tuple[str, ...]:
    out = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith((".", "__pycache__", "test"))]
        out += [os.path.join(root, f) for f in files if f.endswith(".py")]
    return tuple(sorted(out))


@lru_cache(maxsize=1024)
def _search(folder: str, name: str) -> tuple[str, int] | None:
    """Files whose name shares a word with the class (modeling_bert.py for BertModel)
    first, `modeling_` files before `modular_` ones; then all the package's files."""
    words = {w.lower() for w in _SPLITTER.findall(name) if len(w) > 2}
    files = _py_files(folder)

    def rank(path: str) -> tuple:
        stem = Path(path).stem.lower()
        return (
            not any(w in stem for w in words),
            stem.startswith("modular_"),
            len(path),
        )

    for path in sorted(files, key=rank):
        found = _class_line(path, name)
        if found:
            return found
    return None
