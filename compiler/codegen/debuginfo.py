"""DWARF for generated code: a compile unit per model source file, a DISubprogram per kernel
and a DILocation per op, pointing at the model's Python lines.

Choices from measurements (../shared/DEBUGGERS.md): the CU language is C99 (LLDB shows no
variables for DW_LANG_Python), DWARF 4 (GDB 13 reads no lines from DWARF 5 in core files),
and kernel prologues carry no location (else debuggers stop before the argument spills).
"""

from __future__ import annotations

import os

from llvmlite import ir

from .. import __version__
from ..ir.location import AnyLoc

__all__ = ["DebugInfo"]


class DebugInfo:
    """Builds debug metadata into one llvmlite module."""

    def __init__(self, module: ir.Module, fallback_file: str) -> None:
        self.module = module
        self.fallback_file = fallback_file
        self.units: dict[str, tuple[ir.DIValue, ir.DIValue]] = {}
        self.subroutine_type = module.add_debug_info("DISubroutineType", {"types": module.add_metadata([])})
        i32 = ir.IntType(32)
        flags = module.add_named_metadata("llvm.module.flags")
        flags.add(module.add_metadata([ir.Constant(i32, 2), "Dwarf Version", ir.Constant(i32, 4)]))
        flags.add(module.add_metadata([ir.Constant(i32, 2), "Debug Info Version", ir.Constant(i32, 3)]))

    def _unit(self, path: str) -> tuple[ir.DIValue, ir.DIValue]:
        """(DIFile, DICompileUnit) for a source file, created once."""
        if path not in self.units:
            absolute = os.path.abspath(path)
            file = self.module.add_debug_info("DIFile", {
                "filename": os.path.basename(absolute), "directory": os.path.dirname(absolute)})
            cu = self.module.add_debug_info("DICompileUnit", {
                "language": ir.DIToken("DW_LANG_C99"),
                "file": file,
                "producer": f"cuvil {__version__}",
                "isOptimized": True,
                "runtimeVersion": 0,
                "emissionKind": ir.DIToken("FullDebug"),
            }, is_distinct=True)
            self.module.add_named_metadata("llvm.dbg.cu").add(cu)
            self.units[path] = (file, cu)
        return self.units[path]

    def subprogram(self, fn: ir.Function, loc: AnyLoc) -> ir.DIValue:
        """Attach a DISubprogram to `fn` at the op's source line; returns it (the scope)."""
        part = _first_source(loc)
        path = part.file if part else self.fallback_file
        line = (part.line or 1) if part else 1
        file, cu = self._unit(path)
        sp = self.module.add_debug_info("DISubprogram", {
            "name": fn.name,
            "linkageName": fn.name,
            "scope": file,
            "file": file,
            "line": line,
            "type": self.subroutine_type,
            "scopeLine": line,
            "spFlags": ir.DIToken("DISPFlagDefinition | DISPFlagOptimized"),
            "unit": cu,
        }, is_distinct=True)
        fn.set_metadata("dbg", sp)
        return sp

    def location(self, scope: ir.DIValue, loc: AnyLoc) -> ir.DIValue:
        part = _first_source(loc)
        line = (part.line or 1) if part else 1
        col = (part.col or 0) if part else 0
        return self.module.add_debug_info("DILocation", {"line": line, "column": col, "scope": scope})


def _first_source(loc: AnyLoc):
    return next((p for p in loc.parts if p.file), None)
