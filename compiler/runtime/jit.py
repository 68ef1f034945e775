"""JIT-compiles a Program with MCJIT and exposes its entry as a ctypes function.

With ``debug`` the engine registers its objects through the GDB JIT interface, so GDB and
LLDB resolve breakpoints on kernels and on model lines (registration costs debugger time, so
it is off otherwise).

With a ``bisect_limit`` (LLVM's ``-opt-bisect-limit``) the module is optimized and
compiled in a child process (``llvm_worker``: the option is process-global and cannot be
undone, so this process never sets it); the engine loads the child's object like a
cached one.
"""

from __future__ import annotations

import ctypes
import sys

import llvmlite.binding as llvm

from ..codegen.generator import Program
from ..codegen.target import init_llvm, optimize, target_machine
from ..errors import CodegenError
from . import llvm_worker, objcache

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
    """Owns the execution engine (keep it alive as long as the entry is used).

    `bisect_limit` (None: no limit; ``cuvil.compile`` passes its ``llvm_bisect_limit``)
    compiles with LLVM's ``-opt-bisect-limit`` in a child process, never cached; LLVM's
    ``BISECT: ...`` lines are kept in `bisect_log` and, with `echo_bisect`, also written
    on stderr (where LLVM itself would write them).
    """

    def __init__(
        self,
        program: Program,
        opt: int,
        debug: bool = False,
        bisect_limit: int | None = None,
        echo_bisect: bool = True,
        prebuilt: llvm_worker.Pending | None = None,
    ) -> None:
        """`prebuilt`: the same program being compiled by a background child
        (`JitModule.start`); its object is used and cached like MCJIT's own."""
        self.bisect_log: list[str] = []
        # debug and bisected builds skip the object cache: debug objects must go
        # through JIT registration, bisected ones are not the module's real code
        use_cache = not debug and bisect_limit is None
        key = objcache.cache_key(program.llvm_ir, opt) if use_cache else None
        cached = objcache.load_object(key) if key else None
        self.cache_hit = cached is not None
        if bisect_limit is not None:
            self.module = _parse(program)  # invalid IR fails here, not in the child
            result = llvm_worker.compile_object(program.llvm_ir, opt, bisect_limit)
            self.bisect_log = result.bisect_log
            if echo_bisect and result.bisect_log:
                sys.stderr.write("".join(f"{ln}\n" for ln in result.bisect_log))
            if result.stderr:
                sys.stderr.write(result.stderr)
            cached = result.object
        elif prebuilt is not None and cached is None:
            self.module = _parse(program)
            cached = prebuilt.result().object
            if key:
                objcache.store_object(key, cached)
        else:
            self.module = (
                _parse(program) if cached else parse_and_optimize(program, opt)
            )
        self.engine = llvm.create_mcjit_compiler(self.module, target_machine(opt))
        if debug:
            self.engine.enable_jit_events()
        if key:
            self.engine.set_object_cache(
                notify_func=lambda _mod, data: objcache.store_object(key, data),
                getbuffer_func=lambda _mod: cached,
            )
        elif cached is not None:  # the child's object
            self.engine.set_object_cache(getbuffer_func=lambda _mod: cached)
        self.engine.finalize_object()
        self.engine.run_static_constructors()
        self.entry = EntryFn(self.engine.get_function_address(program.entry))

    @staticmethod
    def start(
        program: Program, opt: int, bisect_limit: int | None = None
    ) -> llvm_worker.Pending | None:
        """Start optimizing `program` in a background child process, unless its object
        is cached or `bisect_limit` is set (None then): pass the result as `prebuilt`
        to use two cores for two modules."""
        if bisect_limit is not None:
            return None
        key = objcache.cache_key(program.llvm_ir, opt)
        if key and objcache.load_object(key) is not None:
            return None
        return llvm_worker.start_object(program.llvm_ir, opt)

    def symbol_address(self, name: str) -> int:
        return self.engine.get_function_address(name)
