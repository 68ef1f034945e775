"""Pass registry: passes are found by their kebab-case name.

Register a pass with the ``@register_pass`` decorator, or from another package through the
``cuvil.passes`` entry point group (``name = "pkg.module:PassClass"``).
"""

from __future__ import annotations

import difflib
from importlib.metadata import entry_points

from ..errors import PassError
from .base import ModulePass

__all__ = ["register_pass", "get_pass", "known_passes", "ENTRY_POINT_GROUP"]

ENTRY_POINT_GROUP = "cuvil.passes"

_PASSES: dict[str, type[ModulePass]] = {}
_loaded_entry_points = False


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


def _load_entry_points() -> None:
    global _loaded_entry_points
    if _loaded_entry_points:
        return
    _loaded_entry_points = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        cls = ep.load()
        if ep.name != cls.name:
            raise PassError(
                f"entry point '{ep.name}' loads pass '{cls.name}'",
                hint="name the entry point after the pass",
            )
        register_pass(cls)


def known_passes() -> dict[str, type[ModulePass]]:
    """Every registered pass by name (built-ins, decorated and entry-point passes)."""
    from . import builtin  # noqa: F401  (registers the built-in passes)

    _load_entry_points()
    return dict(sorted(_PASSES.items()))


def get_pass(name: str) -> type[ModulePass]:
    """The pass class called `name`; a PassError lists the known names otherwise."""
    known = known_passes()
    if name in known:
        return known[name]
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    raise PassError(
        f"unknown pass '{name}'", hint=f"{hint}known passes: {', '.join(known)}"
    )
