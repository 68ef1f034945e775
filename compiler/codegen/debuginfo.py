"""DWARF for generated code: a compile unit per model source file, a DISubprogram per
kernel, a DILocation per op and a local variable per tensor argument, pointing at the
model's Python lines.

Choices from measurements (../shared/DEBUGGERS.md): the CU language is C99 (LLDB shows
no variables for DW_LANG_Python), DWARF 4 (GDB 13 reads no lines from DWARF 5 in core
files), and kernel prologues carry no location (else debuggers stop before the argument
spills and show the previous op's tensors).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from llvmlite import ir

from ..ir.location import AnyLoc
from ..ir.types import DType
from ..version import __version__

__all__ = ["DebugInfo", "KernelArg"]

PTR = ir.PointerType()

# DWARF base types for tensor elements: (C name, bits, DW_ATE encoding).
_BASE_TYPES = {
    DType.f64: ("double", 64, "DW_ATE_float"),
    DType.f32: ("float", 32, "DW_ATE_float"),
    DType.f16: ("_Float16", 16, "DW_ATE_float"),
    DType.bf16: ("__bf16", 16, "DW_ATE_float"),
    DType.i64: ("int64_t", 64, "DW_ATE_signed"),
    DType.i32: ("int32_t", 32, "DW_ATE_signed"),
    DType.i16: ("int16_t", 16, "DW_ATE_signed"),
    DType.i8: ("int8_t", 8, "DW_ATE_signed"),
    DType.u8: ("uint8_t", 8, "DW_ATE_unsigned"),
    DType.i1: ("bool", 8, "DW_ATE_boolean"),
}

KernelArg = tuple[str, DType]  # (variable name, element type) of one pointer argument


class DebugInfo:
    """Builds debug metadata into one llvmlite module."""

    def __init__(self, module: ir.Module, fallback_file: str) -> None:
        self.module = module
        self.fallback_file = fallback_file
        self.units: dict[str, tuple[ir.DIValue, ir.DIValue]] = {}
        self._pointers: dict[DType, ir.DIValue] = {}
        i32 = ir.IntType(32)
        flags = module.add_named_metadata("llvm.module.flags")
        for key, value in (("Dwarf Version", 4), ("Debug Info Version", 3)):
            flags.add(
                module.add_metadata([ir.Constant(i32, 2), key, ir.Constant(i32, value)])
            )

    # ---- types ----------------------------------------------------------------------
    def pointer_type(self, dtype: DType) -> ir.DIValue:
        """``T *`` for a tensor of element type T (so ``p *x@8`` prints elements)."""
        if dtype not in self._pointers:
            name, bits, encoding = _BASE_TYPES[dtype]
            base = self.module.add_debug_info(
                "DIBasicType",
                {"name": name, "size": bits, "encoding": ir.DIToken(encoding)},
            )
            self._pointers[dtype] = self.module.add_debug_info(
                "DIDerivedType",
                {
                    "tag": ir.DIToken("DW_TAG_pointer_type"),
                    "baseType": base,
                    "size": 64,
                },
            )
        return self._pointers[dtype]

    def _subroutine_type(self, args: Sequence[KernelArg]) -> ir.DIValue:
        types = [None] + [self.pointer_type(dtype) for _, dtype in args]
        return self.module.add_debug_info(
            "DISubroutineType", {"types": self.module.add_metadata(types)}
        )

    # ---- scopes and locations -------------------------------------------------------
    def _unit(self, path: str) -> tuple[ir.DIValue, ir.DIValue]:
        """(DIFile, DICompileUnit) for a source file, created once."""
        if path not in self.units:
            absolute = os.path.abspath(path)
            file = self.module.add_debug_info(
                "DIFile",
                {
                    "filename": os.path.basename(absolute),
                    "directory": os.path.dirname(absolute),
                },
            )
            cu = self.module.add_debug_info(
                "DICompileUnit",
                {
                    "language": ir.DIToken("DW_LANG_C99"),
                    "file": file,
                    "producer": f"cuvil {__version__}",
                    "isOptimized": True,
                    "runtimeVersion": 0,
                    "emissionKind": ir.DIToken("FullDebug"),
                },
                is_distinct=True,
            )
            self.module.add_named_metadata("llvm.dbg.cu").add(cu)
            self.units[path] = (file, cu)
        return self.units[path]

    def subprogram(
        self, fn: ir.Function, loc: AnyLoc, args: Sequence[KernelArg] = ()
    ) -> ir.DIValue:
        """Attach a DISubprogram to `fn` at the op's source line; returns the scope."""
        part = _first_source(loc)
        path = part.file if part else self.fallback_file
        line = (part.line or 1) if part else 1
        file, cu = self._unit(path)
        sp = self.module.add_debug_info(
            "DISubprogram",
            {
                "name": fn.name,
                "linkageName": fn.name,
                "scope": file,
                "file": file,
                "line": line,
                "type": self._subroutine_type(args),
                "scopeLine": line,
                "spFlags": ir.DIToken("DISPFlagDefinition | DISPFlagOptimized"),
                "unit": cu,
            },
            is_distinct=True,
        )
        fn.set_metadata("dbg", sp)
        return sp

    def location(self, scope: ir.DIValue, loc: AnyLoc) -> ir.DIValue:
        part = _first_source(loc)
        line = (part.line or 1) if part else 1
        col = (part.col or 0) if part else 0
        return self.module.add_debug_info(
            "DILocation", {"line": line, "column": col, "scope": scope}
        )

    # ---- kernels --------------------------------------------------------------------
    def begin_kernel(
        self, b: ir.IRBuilder, fn: ir.Function, loc: AnyLoc, args: Sequence[KernelArg]
    ) -> ir.DIValue:
        """Describe a kernel and emit its debug prologue; returns the op's DILocation.

        Each pointer argument is spilled to a stack slot described by a DILocalVariable.
        The spills carry no location (trap 2: debuggers stop after them); a volatile
        reload that does carry the op's location ends the prologue, so a breakpoint on
        the kernel or its line is hit once, before any loop, at every opt level. The
        volatile access also keeps the slots alive at O2/O3: the tensors stay printable.
        """
        scope = self.subprogram(fn, loc, args)
        where = self.location(scope, loc)
        b.debug_metadata = None
        slots = [b.alloca(PTR, name=f"{name}.addr") for name, _ in args]
        for arg, slot in zip(fn.args, slots):
            b.store(arg, slot)
        b.debug_metadata = where
        declare = _declare_intrinsic(self.module)
        expr = self.module.add_debug_info("DIExpression", {})
        for slot, var in zip(slots, self._variables(scope, loc, args)):
            b.call(declare, [slot, var, expr])
        for slot in slots:  # llvmlite's load has no volatile flag
            b._insert(_VolatileLoad(b.block, slot, typ=PTR))
        return where

    def _variables(
        self, scope: ir.DIValue, loc: AnyLoc, args: Sequence[KernelArg]
    ) -> list[ir.DIValue]:
        part = _first_source(loc)
        file, _ = self._unit(part.file if part else self.fallback_file)
        line = (part.line or 1) if part else 1
        return [
            self.module.add_debug_info(
                "DILocalVariable",
                {
                    "name": name,
                    "arg": i + 1,
                    "scope": scope,
                    "file": file,
                    "line": line,
                    "type": self.pointer_type(dtype),
                },
            )
            for i, (name, dtype) in enumerate(args)
        ]


class _VolatileLoad(ir.LoadInstr):
    def descr(self, buf: list[str]) -> None:
        super().descr(buf)
        buf[-1] = buf[-1].replace("load ", "load volatile ", 1)


def _declare_intrinsic(module: ir.Module) -> ir.Function:
    name = "llvm.dbg.declare"
    if name in module.globals:
        return module.globals[name]
    md = ir.MetaDataType()
    return ir.Function(module, ir.FunctionType(ir.VoidType(), [md, md, md]), name)


def _first_source(loc: AnyLoc):
    return next((p for p in loc.parts if p.file), None)
