"""Which files are model files, read without importing them (`--skip-non-models`:
pre-commit passes every staged .py file, most of which define no model)."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

from .api import is_glob
from .load import DEFAULT_ENTRY, split_spec

__all__ = ["defines_entry", "missing_path", "model_specs"]


def model_specs(specs: list[str], entry: str | None) -> list[str]:
    """The specs that may name a model: a `pkg.mod:Entry` or a file that binds the
    entry name at its top level; other .py files are left out."""
    return [s for s in specs if not _is_py_file(s) or defines_entry(s, entry)]


def defines_entry(spec: str, entry: str | None = None) -> bool:
    """Does the file bind the entry (`class Model`, `def Model`, `Model = ...`, an
    import as Model) at its top level? A file that does not parse is kept when a
    line starts its definition, so triage reports its syntax error."""
    path, attr = split_spec(spec)
    name = attr or entry or DEFAULT_ENTRY
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True  # triage reports what cannot be read
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return bool(re.search(rf"^\s*(class|def)\s+{re.escape(name)}\b", text, re.M))
    return name in _top_level_names(tree)


def _is_py_file(spec: str) -> bool:
    return split_spec(spec)[0].endswith(".py")


def _top_level_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def missing_path(spec: str) -> bool:
    """A spec that names a file or folder (`models/`, `m.py`, `m.py:Net`) that is not
    there; `package.module:Model` specs are imported, not looked up, and a glob that
    matches nothing is "no models found", not a missing path."""
    path = spec.rsplit(":", 1)[0] if spec.count(":") == 1 else spec
    if is_glob(path):
        return False
    looks_like_path = path.endswith(".py") or os.sep in path
    return looks_like_path and not os.path.exists(path)
