"""Pass registry: passes are found by their kebab-case name, and imported on first use.

Register a pass with the ``@register_pass`` decorator, or from another package through the
``cuvil.passes`` entry point group (``name = "pkg.module:PassClass"``). The built-in passes
are a table of names and ``module:Class`` (``BUILTIN_PASSES``): nothing is imported until a
pipeline names a pass (``get_pass``) or a tool lists them all (``known_passes``), as in
xDSL's ``get_all_passes`` (name -> loader).
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable
from importlib.metadata import entry_points

from ..errors import PassError
from .base import ModulePass

__all__ = [
    "register_pass",
    "get_pass",
    "known_passes",
    "ENTRY_POINT_GROUP",
    "BUILTIN_PASSES",
]

ENTRY_POINT_GROUP = "cuvil.passes"

# name -> "module:Class" in this package, one pass per module
BUILTIN_PASSES: dict[str, str] = {
    "cse": "cse:CommonSubexpressionEliminationPass",
    "dce": "dce:DeadCodeEliminationPass",
    "fold-bn": "fold_bn:FoldBatchNormPass",
    "fold-constants": "fold_constants:FoldConstantsPass",
    "fold-qdq": "fold_qdq:FoldQdqPass",
    "fuse-elementwise": "fuse_elementwise:FuseElementwisePass",
    "fuse-epilogue": "fuse_epilogue:FuseEpiloguePass",
    "layout-nhwc": "layout:LayoutNhwcPass",
    "memory-hints": "memory_hints:MemoryHintsPass",
}

Loader = Callable[[], type[ModulePass]]

_PASSES: dict[str, type[ModulePass]] = {}  # loaded (or decorated) passes
_ENTRY_LOADERS: dict[str, Loader] = {}  # entry-point passes (loaded on first use)
_loaded_entry_points = False  # entry points scanned (their modules are not imported)


def register_pass(cls: type[ModulePass]) -> type[ModulePass]:
    """Class decorator: make a pass known by its ``name``."""
    name = cls.name
    if not name or name != name.lower() or " " in name or "_" in name:
        raise ValueError(
            f"pass name {name!r} must be kebab-case (e.g. 'fuse-elementwise')"
        )
    if name in _PASSES and _PASSES[name] is not cls:
        raise ValueError(f"pass '{name}' registered twice")
    _PASSES[name] = cls
    return cls


def _builtin(name: str) -> type[ModulePass]:
    module, _, attr = BUILTIN_PASSES[name].partition(":")
    return getattr(importlib.import_module(f"{__package__}.{module}"), attr)


def _entry_loader(ep) -> Loader:
    def load() -> type[ModulePass]:
        cls = ep.load()
        if ep.name != cls.name:
            raise PassError(
                f"entry point '{ep.name}' loads pass '{cls.name}'",
                hint="name the entry point after the pass",
            )
        return cls

    return load


def _scan_entry_points() -> None:
    global _loaded_entry_points
    if _loaded_entry_points:
        return
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        _ENTRY_LOADERS[ep.name] = _entry_loader(ep)
    _loaded_entry_points = True  # after the table is full: compiles run on threads too


def _load(name: str) -> type[ModulePass] | None:
    if name in BUILTIN_PASSES:
        return register_pass(_builtin(name))
    loader = _ENTRY_LOADERS.get(name)
    return None if loader is None else register_pass(loader())


def known_passes() -> dict[str, type[ModulePass]]:
    """Every registered pass by name (built-ins, decorated and entry-point passes)."""
    _scan_entry_points()
    for name in [*BUILTIN_PASSES, *_ENTRY_LOADERS]:
        _load(name)
    return dict(sorted(_PASSES.items()))


def get_pass(name: str) -> type[ModulePass]:
    """The pass class called `name`; a PassError lists the known names otherwise."""
    if name in _PASSES:
        return _PASSES[name]
    _scan_entry_points()
    cls = _load(name)
    if cls is not None:
        return cls
    known = sorted({*_PASSES, *BUILTIN_PASSES, *_ENTRY_LOADERS})
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    raise PassError(
        f"unknown pass '{name}'", hint=f"{hint}known passes: {', '.join(known)}"
    )
