"""DWARF for generated code, pointing at the model's Python lines, at two levels.

- ``variables=True`` (``debug=True``): a compile unit per model source file, a
  DISubprogram per kernel at its op's line, a DILocation per op (per member op inside a
  fused kernel) and a local variable per pointer argument, kept alive at every opt level.
- ``variables=False`` (release builds): line tables only (emissionKind LineTablesOnly):
  the same subprograms and locations, nothing that changes the generated code, so a
  release crash still names the kernel and the op's line, through inlined frames.

Code no model line owns (cuvil_main's own instructions, steps, GEMM helpers, thread
thunks, output copies) is described in the file ``GENERATED``, so every frame has a
file:line and ``break model.py:N`` finds only kernels.

Call sites: a backtrace inside a kernel shows ``cuvil_main (...) at model.py:N``, N the
line of the op being called. A line-table row of model.py:N in cuvil_main would also
make ``break model.py:N`` stop there (LLDB ignores is_stmt), so the call instruction
sits in an inlined scope ``cuvil_call_<i>`` (call i, in GENERATED) whose call site is
the op's location: its rows are GENERATED's, and debuggers take the caller's line from
the inlined subroutine's DW_AT_call_line. A backtrace reads kernel, ``cuvil_call_<i>``,
``cuvil_main at model.py:N``; ``break cuvil_call_<i>`` stops before call i.

Choices from measurements (../shared/DEBUGGERS.md): the CU language is C99 (LLDB shows
no variables for DW_LANG_Python), DWARF 4 (GDB 13 reads no lines from DWARF 5 in core
files), and kernel prologues carry no location (else debuggers stop before the argument
spills and show the previous op's tensors).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from llvmlite import ir

from ..ir.location import AnyLoc, Loc
from ..ir.types import DType
from ..version import __version__

__all__ = ["DebugInfo", "KernelArg", "GENERATED", "debug_attributes"]

PTR = ir.PointerType()
GENERATED = "<cuvil-generated>"  # the file of code no model line owns

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
_Var = tuple[str, ir.DIValue]  # (variable name, its DWARF type)


def debug_attributes(fn: ir.Function, noinline: bool = False) -> None:
    """Debug builds keep every frame: no tail calls (a kernel's last call, the entry's
    last kernel; llvmlite knows no string attributes, LLVM IR does) and, with
    `noinline`, no inlining (a helper inlined into a kernel is an inlined frame where
    LLDB stops on ``breakpoint set -n <kernel>``)."""
    set.add(fn.attributes, '"disable-tail-calls"="true"')
    if noinline and "alwaysinline" not in fn.attributes:
        fn.attributes.add("noinline")


class DebugInfo:
    """Builds debug metadata into one llvmlite module (`variables`: full debug info)."""

    def __init__(
        self, module: ir.Module, fallback_file: str, variables: bool = True
    ) -> None:
        self.module = module
        self.fallback_file = fallback_file
        self.variables = variables
        self.units: dict[str, tuple[ir.DIValue, ir.DIValue]] = {}
        self._pointers: dict[object, ir.DIValue] = {}
        self._files: dict[int, str] = {}  # id(subprogram) -> the path of its file
        i32 = ir.IntType(32)
        flags = module.add_named_metadata("llvm.module.flags")
        for key, value in (("Dwarf Version", 4), ("Debug Info Version", 3)):
            flags.add(
                module.add_metadata([ir.Constant(i32, 2), key, ir.Constant(i32, value)])
            )

    # ---- types ----------------------------------------------------------------------
    def pointer_type(self, dtype: DType | None, depth: int = 1) -> ir.DIValue:
        """``T *`` for a tensor of element type T (so ``p *x@8`` prints elements);
        ``void *`` for None; ``T **`` with depth 2."""
        key = (dtype, depth)
        if key not in self._pointers:
            if depth > 1:
                base = self.pointer_type(dtype, depth - 1)
            elif dtype is None:
                base = None
            else:
                name, bits, encoding = _BASE_TYPES[dtype]
                base = self.module.add_debug_info(
                    "DIBasicType",
                    {"name": name, "size": bits, "encoding": ir.DIToken(encoding)},
                )
            self._pointers[key] = self.module.add_debug_info(
                "DIDerivedType",
                {
                    "tag": ir.DIToken("DW_TAG_pointer_type"),
                    "baseType": base,
                    "size": 64,
                },
            )
        return self._pointers[key]

    def _subroutine_type(self, types: Sequence[ir.DIValue]) -> ir.DIValue:
        types = list(types) if self.variables else []
        return self.module.add_debug_info(
            "DISubroutineType", {"types": self.module.add_metadata([None, *types])}
        )

    # ---- scopes and locations -------------------------------------------------------
    def _file(self, path: str) -> ir.DIValue:
        return self._unit(path)[0]

    def _unit(self, path: str) -> tuple[ir.DIValue, ir.DIValue]:
        """(DIFile, DICompileUnit) for a source file, created once."""
        if path not in self.units:
            absolute = os.path.join(self._home(), path)
            if path != GENERATED:
                absolute = os.path.abspath(path)
            file = self.module.add_debug_info(
                "DIFile",
                {
                    "filename": os.path.basename(absolute),
                    "directory": os.path.dirname(absolute),
                },
            )
            kind = "FullDebug" if self.variables else "LineTablesOnly"
            cu = self.module.add_debug_info(
                "DICompileUnit",
                {
                    "language": ir.DIToken("DW_LANG_C99"),
                    "file": file,
                    "producer": f"cuvil {__version__}",
                    "isOptimized": True,
                    "runtimeVersion": 0,
                    "emissionKind": ir.DIToken(kind),
                },
                is_distinct=True,
            )
            self.module.add_named_metadata("llvm.dbg.cu").add(cu)
            self.units[path] = (file, cu)
        return self.units[path]

    def _home(self) -> str:
        """GENERATED's directory: the first model file's, so that a debugger names the
        model file as in the model's own unit (``model.py``, not its full path)."""
        models = [p for p in self.units if p != GENERATED]
        return os.path.dirname(os.path.abspath(models[0])) if models else os.getcwd()

    def subprogram(
        self,
        fn: ir.Function,
        path: str,
        line: int,
        types: Sequence[ir.DIValue] = (),
    ) -> ir.DIValue:
        """Attach a DISubprogram for `fn` at `path`:`line`; returns the scope."""
        sp = self._subprogram(fn.name, path, line, types)
        fn.set_metadata("dbg", sp)
        return sp

    def _subprogram(
        self, name: str, path: str, line: int, types=(), flags: str | None = None
    ) -> ir.DIValue:
        file, cu = self._unit(path)
        fields = {
            "name": name,
            "linkageName": name,
            "scope": file,
            "file": file,
            "line": line,
            "type": self._subroutine_type(types),
            "scopeLine": line,
            "spFlags": ir.DIToken("DISPFlagDefinition | DISPFlagOptimized"),
            "unit": cu,
        }
        if flags:
            fields["flags"] = ir.DIToken(flags)
        sp = self.module.add_debug_info("DISubprogram", fields, is_distinct=True)
        self._files[id(sp)] = path
        return sp

    def _source(self, loc: AnyLoc | None) -> tuple[str, int, int]:
        part = _first_source(loc)
        if part is None:
            return self.fallback_file, 1, 0
        return part.file, part.line or 1, part.col or 0

    def location(self, scope: ir.DIValue, loc: AnyLoc | None) -> ir.DIValue:
        """The DILocation of `loc`'s first source part, inside `scope`'s function."""
        path, line, col = self._source(loc)
        return self._location(scope, path, line, col)

    def generated(self, scope: ir.DIValue, line: int = 1) -> ir.DIValue:
        """A location in GENERATED, inside `scope`'s function."""
        return self._location(scope, GENERATED, line, 0)

    def member_locations(self, scope: ir.DIValue, loc: AnyLoc) -> list[ir.DIValue]:
        """One DILocation per source line of `loc`'s parts (the members of a fused or
        folded op), in member order, the first part's first."""
        seen, found = set(), []
        for part in loc.parts:
            if part.file and (part.file, part.line) not in seen:
                seen.add((part.file, part.line))
                found.append(self.location(scope, part))
        return found

    def _location(self, scope, path: str, line: int, col: int) -> ir.DIValue:
        if self._files.get(id(scope)) != path:  # another file in this function
            scope = self.module.add_debug_info(  # (created once: llvmlite caches it)
                "DILexicalBlockFile",
                {"scope": scope, "file": self._file(path), "discriminator": 0},
            )
        return self.module.add_debug_info(
            "DILocation", {"line": line, "column": col, "scope": scope}
        )

    # ---- kernels --------------------------------------------------------------------
    def begin_kernel(
        self, b: ir.IRBuilder, fn: ir.Function, loc: AnyLoc, args: Sequence[KernelArg]
    ) -> tuple[ir.DIValue, ir.DIValue]:
        """Describe a kernel and emit its debug prologue; returns (scope, the op's
        DILocation).

        Each pointer argument is spilled to a stack slot described by a DILocalVariable.
        The spills carry no location (trap 2: debuggers stop after them); volatile
        reloads that do carry locations end the prologue, so a breakpoint on the kernel
        or on one of its lines is hit once, before any loop, at every opt level: one
        reload per argument at the op's line, then one per further member line of a
        fused op (the lowest address of that line in the kernel). The volatile accesses
        also keep the slots alive at O2/O3: the tensors stay printable.
        """
        path, line, _ = self._source(loc)
        types = [self.pointer_type(dtype) for _, dtype in args]
        scope = self.subprogram(fn, path, line, types)
        members = self.member_locations(scope, loc) or [self.location(scope, loc)]
        where = members[0]
        if self.variables:
            named = [(name, t) for (name, _), t in zip(args, types)]
            slots = self.spill(b, fn, scope, named, where, (path, line))
            for marker in members[1:]:
                b.debug_metadata = marker
                b._insert(_VolatileLoad(b.block, slots[0], typ=PTR))
        b.debug_metadata = where
        return scope, where

    def begin_generated(
        self, b: ir.IRBuilder, fn: ir.Function, line: int = 1, args: Sequence[_Var] = ()
    ) -> ir.DIValue:
        """Describe a function no model line owns (in GENERATED); with `args` and full
        debug info, its pointer arguments as variables (as begin_kernel). Returns the
        scope; `b` is left at its location."""
        scope = self.subprogram(fn, GENERATED, line, [t for _, t in args])
        where = self.generated(scope, line)
        if self.variables and args:
            self.spill(b, fn, scope, args, where, (GENERATED, line))
        b.debug_metadata = where
        return scope

    def spill(
        self, b: ir.IRBuilder, fn: ir.Function, scope, named: Sequence[_Var], where, at
    ) -> list[ir.Value]:
        """Spill `fn`'s arguments as the variables `named` (location-free stores, then
        declares and volatile reloads at `where`); returns the stack slots."""
        b.debug_metadata = None
        slots = [b.alloca(PTR, name=f"{name}.addr") for name, _ in named]
        for arg, slot in zip(fn.args, slots):
            b.store(arg, slot)
        b.debug_metadata = where
        declare = _declare_intrinsic(self.module)
        expr = self.module.add_debug_info("DIExpression", {})
        for i, (slot, (name, t)) in enumerate(zip(slots, named)):
            var = self.module.add_debug_info(
                "DILocalVariable",
                {
                    "name": name,
                    "arg": i + 1,
                    "scope": scope,
                    "file": self._file(at[0]),
                    "line": at[1],
                    "type": t,
                },
            )
            b.call(declare, [slot, var, expr])
        for slot in slots:  # llvmlite's load has no volatile flag
            b._insert(_VolatileLoad(b.block, slot, typ=PTR))
        return slots

    def call_site(
        self, scope: ir.DIValue, loc: AnyLoc | None, index: int
    ) -> ir.DIValue:
        """The location of call `index` of the entry (or a step), which computes the op
        at `loc`: inside an inlined ``cuvil_call_<index>`` called from `loc`."""
        name = f"cuvil_call_{index}"
        site = self._subprogram(name, GENERATED, 1, flags="DIFlagArtificial")
        at = self.location(scope, loc) if _first_source(loc) else self.generated(scope)
        return self.module.add_debug_info(
            "DILocation", {"line": 1, "column": 0, "scope": site, "inlinedAt": at}
        )

    def describe_rest(self, module: ir.Module) -> None:
        """Every function defined in `module` without a DISubprogram (GEMM helpers,
        thread thunks) gets one in GENERATED, and its instructions that location; in
        debug builds it keeps its frame (debug_attributes)."""
        for fn in module.functions:
            if fn.is_declaration or "dbg" in fn.metadata:
                continue
            if self.variables:
                debug_attributes(fn, noinline=True)
            where = self.generated(self.subprogram(fn, GENERATED, 1))
            for block in fn.blocks:
                for instr in block.instructions:
                    instr.metadata.setdefault("dbg", where)


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


def _first_source(loc: AnyLoc | None) -> Loc | None:
    if loc is None:
        return None
    return next((p for p in loc.parts if p.file), None)
