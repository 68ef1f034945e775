"""cuvil_debug: the toolkit around the Cuvil compiler (model loading, IR tools, CLI).

The names below load on first use, so that ``cuvil_debug.debugger`` (which runs inside
GDB's and LLDB's own Python, without torch) imports without pulling the toolkit in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .loader import LoadedModel, ModelLoadError, load_model

__all__ = ["LoadedModel", "ModelLoadError", "load_model"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import loader

        return getattr(loader, name)
    raise AttributeError(f"module 'cuvil_debug' has no attribute {name!r}")
