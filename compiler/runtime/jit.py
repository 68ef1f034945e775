"""JIT-compiles a Program with MCJIT and exposes its entry as a ctypes function.

Every JIT object carries its debug key (``debugkey.py``: IR, target, options, versions)
as a ``.note.cuvil.debugkey`` note and as its GNU build-id; ``JitModule.debug_key``.

GDB JIT registration (the interface GDB and LLDB learn about JIT code through) is on
when the build has ``debug`` (DWARF), ``break_on`` traps (a debugger is meant to stop
in it) or its symbols go to a symbol store (``keep_symbols`` / ``$CUVIL_SYMBOL_STORE``);
otherwise it is switched off
(``jitreg.py``: MCJIT would register every object, and each costs debugger time).

With a symbol store the full object (with its DWARF, if any) is filed under its key
(``symbols.py``) and, unless ``debug`` is on, MCJIT loads the object stripped of its
DWARF (``objcopy --strip-debug``, handed over through the object-cache hook): a core of
a release crash is symbolised by loading the store's debug file at the registered
object's section addresses (``elfinfo.symbol_file_args``).

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
from ..options import CompileOptions
from . import debugfiles, jitreg, llvm_worker, objcache
from .debugkey import debug_key, key_options, note_module, target, versions
from .symbols import SymbolStore, store_for

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


def jit_key(program: Program, options: CompileOptions) -> str:
    """The debug key of `program`'s JIT object (debugkey.py; non-PIC MCJIT code)."""
    return debug_key(program.llvm_ir, target("mcjit"), key_options(options), versions())


def _parse_keyed(program: Program, key: str) -> llvm.ModuleRef:
    mod = _parse(program)
    mod.link_in(note_module(key, build_id=True))
    return mod


class JitModule:
    """Owns the execution engine (keep it alive as long as the entry is used).

    `options`: the compile's options (the debug key covers them; ``keep_symbols`` or
    ``$CUVIL_SYMBOL_STORE`` name the symbol store); None (internal builds such as the
    stepper's): the defaults at `opt`, and no store. `bisect_limit` (None: no limit;
    ``cuvil.compile`` passes its ``llvm_bisect_limit``) compiles with LLVM's
    ``-opt-bisect-limit`` in a child process, never cached; LLVM's ``BISECT: ...`` lines
    are kept in `bisect_log` and, with `echo_bisect`, also written on stderr (where LLVM
    itself would write them). After construction: `debug_key`, `store` (None: none),
    `registered` (announced through the GDB JIT interface), `cache_hit`.
    """

    def __init__(
        self,
        program: Program,
        opt: int,
        debug: bool = False,
        bisect_limit: int | None = None,
        echo_bisect: bool = True,
        prebuilt: llvm_worker.Pending | None = None,
        options: CompileOptions | None = None,
    ) -> None:
        """`prebuilt`: the same program being compiled by a background child
        (`JitModule.start`); its object is used and cached like MCJIT's own."""
        self.debug_key = jit_key(program, _options(options, opt, debug))
        self.store: SymbolStore | None = store_for(options) if options else None
        self.bisect_log: list[str] = []
        # debug and bisected builds skip the object cache: debug objects must go
        # through JIT registration, bisected ones are not the module's real code
        use_cache = not debug and bisect_limit is None
        key = objcache.cache_key(program.llvm_ir, opt, self.debug_key)
        key = key if use_cache else None
        cached = objcache.load_object(key) if key else None
        self.cache_hit = cached is not None
        obj = self._build(program, opt, bisect_limit, echo_bisect, prebuilt, cached)
        if obj is not None and key and cached is None:
            objcache.store_object(key, obj)
        if obj is not None and self.store is not None:
            self.store.put(debug=obj, source="jit")
            if not debug:  # MCJIT loads it without DWARF; the store has that
                obj = debugfiles.strip_object(obj)
        self.engine = llvm.create_mcjit_compiler(self.module, target_machine(opt))
        # break_on traps are there to stop a debugger: it must see the code
        trapped = bool(options and options.break_on)
        self.registered = (
            debug
            or trapped
            or self.store is not None
            or not jitreg.unregister_listener(self.engine)
        )
        if debug:
            self.engine.enable_jit_events()
        if obj is not None:
            self.engine.set_object_cache(getbuffer_func=lambda _mod: obj)
        elif key:
            self.engine.set_object_cache(
                notify_func=lambda _mod, data: objcache.store_object(key, data)
            )
        self.engine.finalize_object()
        self.engine.run_static_constructors()
        self.entry = EntryFn(self.engine.get_function_address(program.entry))

    def _build(
        self,
        program: Program,
        opt: int,
        bisect_limit: int | None,
        echo_bisect: bool,
        prebuilt: llvm_worker.Pending | None,
        cached: bytes | None,
    ) -> bytes | None:
        """Set `module`; return the object MCJIT is to load (None: it compiles the
        module itself, which then is optimized)."""
        if bisect_limit is not None:
            # invalid IR fails here, not in the child
            self.module = _parse_keyed(program, self.debug_key)
            result = llvm_worker.compile_object(str(self.module), opt, bisect_limit)
            self.bisect_log = result.bisect_log
            if echo_bisect and result.bisect_log:
                sys.stderr.write("".join(f"{ln}\n" for ln in result.bisect_log))
            if result.stderr:
                sys.stderr.write(result.stderr)
            return result.object
        if cached is not None or prebuilt is not None:
            self.module = _parse_keyed(program, self.debug_key)
            return cached if cached is not None else prebuilt.result().object
        self.module = _parse_keyed(program, self.debug_key)
        optimize(self.module, opt)
        if self.store is None:
            return None
        return target_machine(opt).emit_object(self.module)

    @staticmethod
    def start(
        program: Program,
        opt: int,
        bisect_limit: int | None = None,
        options: CompileOptions | None = None,
    ) -> llvm_worker.Pending | None:
        """Start optimizing `program` in a background child process, unless its object
        is cached or `bisect_limit` is set (None then): pass the result as `prebuilt`
        (with the same `options`) to use two cores for two modules."""
        if bisect_limit is not None:
            return None
        key = jit_key(program, _options(options, opt, False))
        if objcache.load_object(objcache.cache_key(program.llvm_ir, opt, key)):
            return None
        return llvm_worker.start_object(str(_parse_keyed(program, key)), opt)

    def symbol_address(self, name: str) -> int:
        return self.engine.get_function_address(name)


def _options(options: CompileOptions | None, opt: int, debug: bool) -> CompileOptions:
    return options or CompileOptions(opt_level=f"O{opt}", debug=debug)
