"""JIT-compiles a Program with MCJIT and exposes its entry as a ctypes function.

With ``debug`` the engine registers its objects through the GDB JIT interface, so GDB and
LLDB resolve breakpoints on kernels and on model lines (registration costs debugger time, so
it is off otherwise).
"""

from __future__ import annotations

import ctypes

import llvmlite.binding as llvm

from ..codegen.generator import Program
from ..codegen.target import init_llvm, optimize, target_machine
from ..errors import CodegenError
from . import objcache

__all__ = ["JitModule", "EntryFn"]

EntryFn = ctypes.CFUNCTYPE(
    None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p
)


def _parse(program: Program) -> llvm.ModuleRef:
    init_llvm()
    try:
        mod = llvm.parse_assembly(program.llvm_ir)
        mod.verify()
    except RuntimeError as e:
        first = "\n".join(str(e).splitlines()[:4])
        raise CodegenError(
            f"generated LLVM IR is invalid: {first}",
            hint="this is a Cuvil code generation bug",
        ) from e
    return mod


def parse_and_optimize(program: Program, opt: int) -> llvm.ModuleRef:
    mod = _parse(program)
    optimize(mod, opt)
    return mod


class JitModule:
    """Owns the execution engine (keep it alive as long as the entry is used)."""

    def __init__(self, program: Program, opt: int, debug: bool = False) -> None:
        # debug builds skip the object cache: their objects must go through JIT registration
        key = None if debug else objcache.cache_key(program.llvm_ir, opt)
        cached = objcache.load_object(key) if key else None
        self.cache_hit = cached is not None
        self.module = _parse(program) if cached else parse_and_optimize(program, opt)
        self.engine = llvm.create_mcjit_compiler(self.module, target_machine(opt))
        if debug:
            self.engine.enable_jit_events()
        if key:
            self.engine.set_object_cache(
                notify_func=lambda _mod, data: objcache.store_object(key, data),
                getbuffer_func=lambda _mod: cached,
            )
        self.engine.finalize_object()
        self.engine.run_static_constructors()
        self.entry = EntryFn(self.engine.get_function_address(program.entry))

    def symbol_address(self, name: str) -> int:
        return self.engine.get_function_address(name)

    def assembly(self, opt: int) -> str:
        return target_machine(opt).emit_assembly(self.module)
