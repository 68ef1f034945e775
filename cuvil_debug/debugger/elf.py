"""The ELF reader of the debugger commands: the compiler's own, loaded by its path.

compiler/runtime/elfinfo.py imports nothing but the standard library, but importing it
as ``cuvil.runtime.elfinfo`` would run ``cuvil/__init__`` (torch), which a debugger's
Python does not have. So it is loaded from its file: beside this package in a source
checkout, or wherever an installed ``cuvil`` package lives (found without importing it).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

__all__ = ["Elf", "Symbol", "open_elf", "symbol_file_args"]

_NAME = "cuvil_debug.debugger._elfinfo"


def _candidates():
    yield Path(__file__).resolve().parents[2] / "compiler" / "runtime" / "elfinfo.py"
    try:
        spec = importlib.util.find_spec("cuvil")  # locates, does not import
    except (ImportError, ValueError):
        spec = None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        yield Path(folder) / "runtime" / "elfinfo.py"


def _load():
    if _NAME in sys.modules:
        return sys.modules[_NAME]
    for path in _candidates():
        if path.is_file():
            spec = importlib.util.spec_from_file_location(_NAME, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[_NAME] = module  # dataclasses look their module up
            spec.loader.exec_module(module)
            return module
    raise ImportError("cannot find Cuvil's compiler/runtime/elfinfo.py")


_elfinfo = _load()
Elf = _elfinfo.Elf
Symbol = _elfinfo.Symbol
open_elf = _elfinfo.open_elf
symbol_file_args = _elfinfo.symbol_file_args
