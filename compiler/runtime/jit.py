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

A cached object (``objcache.py``: its bytes checked against the entry's checksums) is
also checked here before MCJIT sees it (``_object_check``: a whole relocatable ELF
object carrying this build's debug key); an object that fails, or that LLVM refuses
anyway, is evicted and the module rebuilt from its IR.

With a ``bisect_limit`` (LLVM's ``-opt-bisect-limit``) the module is optimized and
compiled in a child process (``llvm_worker``: the option is process-global and cannot be
undone, so this process never sets it); the engine loads the child's object like a
cached one.
"""

from __future__ import annotations

import ctypes
import struct
import sys
from dataclasses import dataclass

import llvmlite.binding as llvm

from ..codegen.generator import Program
from ..codegen.lightsplit import Split, split
from ..codegen.target import init_llvm, optimize, target_machine, target_triple
from ..errors import CodegenError
from ..options import CompileOptions
from . import debugfiles, jitreg, llvm_worker, objcache, perfmap, pool
from .debugkey import debug_key, key_options, note_module, target, versions
from .elfinfo import SHT_NOBITS, Elf
from .symbols import SymbolStore, store_for

__all__ = ["JitModule", "EntryFn", "Reuse"]

EntryFn = ctypes.CFUNCTYPE(
    None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p
)


def _parse(program: Program, text: str | None = None) -> llvm.ModuleRef:
    """`program`'s LLVM IR parsed and verified (`text`: a part of it, lightsplit.py)."""
    init_llvm()
    try:
        mod = llvm.parse_assembly(program.llvm_ir if text is None else text)
        mod.verify()
    except RuntimeError as e:
        first = "\n".join(str(e).splitlines()[:4])
        raise CodegenError(
            f"generated LLVM IR is invalid: {first}",
            hint="this is a Cuvil code generation bug",
        ) from e
    return mod


def split_parts(program: Program, opt: int) -> Split | None:
    """The program cut into its main and light parts (lightsplit.py); None: one module
    (nothing to cut, or ``opt`` 0, where no IR pass runs anyway)."""
    return split(program.llvm_ir, program.light) if opt > 0 else None


def parse_and_optimize(program: Program, opt: int) -> llvm.ModuleRef:
    parts = split_parts(program, opt)
    if parts is None:
        mod = _parse(program)
        optimize(mod, opt)
        return mod
    mod = _parse(program, parts.main)
    optimize(mod, opt, _parse(program, parts.light))
    return mod


def jit_key(program: Program, options: CompileOptions) -> str:
    """The debug key of `program`'s JIT object (debugkey.py; non-PIC MCJIT code)."""
    return debug_key(program.llvm_ir, target("mcjit"), key_options(options), versions())


def _parse_keyed(
    program: Program, key: str, parts: Split | None = None
) -> llvm.ModuleRef:
    """The module (or with `parts` its main part) with the debug-key notes."""
    mod = _parse(program, parts.main if parts is not None else None)
    mod.link_in(note_module(key, build_id=True))
    return mod


def _placeholder() -> llvm.ModuleRef:
    """An empty module for an engine that loads a whole cached object (an IR-level
    hit: there is no LLVM IR); MCJIT asks the object cache for it like for any."""
    init_llvm()
    return llvm.parse_assembly(f'target triple = "{target_triple()}"\n')


@dataclass(frozen=True)
class Reuse:
    """What the IR-level cache (ircache.py) knows of a build: its debug key, its
    object's key in the object cache, and its perf-map labels (None: not recorded)."""

    debug_key: str
    object_key: str
    labels: dict[str, str] | None = None


class JitModule:
    """Owns the execution engine (keep it alive as long as the entry is used).

    `options`: the compile's options (the debug key covers them; ``keep_symbols`` or
    ``$CUVIL_SYMBOL_STORE`` name the symbol store); None (internal builds such as the
    stepper's): the defaults at `opt`, and no store. `bisect_limit` (None: no limit;
    ``cuvil.compile`` passes its ``llvm_bisect_limit``) compiles with LLVM's
    ``-opt-bisect-limit`` in a child process, never cached; LLVM's ``BISECT: ...`` lines
    are kept in `bisect_log` and, with `echo_bisect`, also written on stderr (where LLVM
    itself would write them). After construction: `debug_key`, `store` (None: none),
    `registered` (announced through the GDB JIT interface), `cache_hit`, `cache_used`
    (the object cache was looked in: not for bisected builds, nor with
    ``CUVIL_CACHE=0``), `object_key` (its key there; None: not used), `reused` (the
    engine runs the object `reuse` named: an IR-level hit, no LLVM IR was parsed),
    `ir_cache_used` / `ir_cache_hit` (the IR level was looked in / served the build).

    `reuse` (ircache.Reuse): load that build's object from the object cache instead of
    compiling `program`; when it is gone or refused, `program`'s LLVM IR (generated
    again) is compiled, without a second lookup of the same key.
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
        reuse: Reuse | None = None,
    ) -> None:
        """`prebuilt`: the same program being compiled by a background child
        (`JitModule.start`); its object is used and cached like MCJIT's own."""
        self.store: SymbolStore | None = store_for(options) if options else None
        self.perf = perfmap.enabled(options)  # name the functions to perf (perfmap.py)
        self.bisect_log: list[str] = []
        self.perf_labels: dict[str, str] | None = None
        self.reused, self.object_key = False, None
        self.light: tuple[str, ...] = ()  # functions compiled without IR passes
        # the IR level's lookup for this build (set by ircache.finish)
        self.ir_cache_used = self.ir_cache_hit = False
        if reuse is not None and self._reuse(program, debug, options, reuse, opt):
            return
        self.debug_key = jit_key(program, _options(options, opt, debug))
        # bisected builds skip the object cache: they are not the module's real code
        # (debug builds use it: MCJIT announces a cached object to GDB and LLDB
        # through the JIT interface like one it compiled)
        use_cache = bisect_limit is None and objcache.enabled()
        key = objcache.cache_key(program.llvm_ir, opt, self.debug_key)
        key = key if use_cache else None
        self.object_key = key
        looked = reuse is not None and key == reuse.object_key  # and found nothing
        cached = None
        if key and not looked:
            cached = objcache.load_object(key, _object_check(self.debug_key))
        self.cache_hit = cached is not None
        self.cache_used = key is not None  # a lookup was made
        if cached is not None:
            try:
                self.module = _parse_keyed(program, self.debug_key)
                self._start(program, debug, options, key, cached, opt)
                return
            except RuntimeError as e:  # llvmlite's error: LLVM refused the object
                objcache.evict(key, f"was refused by LLVM ({_first_line(e)})")
                self.cache_hit = False
        obj = self._build(program, opt, bisect_limit, echo_bisect, prebuilt)
        if obj is not None and key:
            objcache.store_object(key, obj)
        self._start(program, debug, options, key, obj, opt)

    def _reuse(
        self,
        program: Program,
        debug: bool,
        options: CompileOptions | None,
        reuse: Reuse,
        opt: int,
    ) -> bool:
        """Start the engine over `reuse`'s cached object (an IR-level hit); False:
        it is gone or LLVM refused it (then evicted), and the caller compiles."""
        self.debug_key, self.object_key = reuse.debug_key, reuse.object_key
        obj = objcache.load_object(reuse.object_key, _object_check(reuse.debug_key))
        self.cache_hit, self.cache_used = obj is not None, True
        if obj is None:
            return False
        self.perf_labels = reuse.labels
        try:
            self.module = _placeholder()
            self._start(program, debug, options, reuse.object_key, obj, opt)
        except RuntimeError as e:  # llvmlite's error: LLVM refused the object
            objcache.evict(reuse.object_key, f"was refused by LLVM ({_first_line(e)})")
            self.cache_hit = False
            return False
        self.reused = True
        return True

    def _start(
        self,
        program: Program,
        debug: bool,
        options: CompileOptions | None,
        key: str | None,
        obj: bytes | None,
        opt: int,
    ) -> None:
        """Create the engine over `module` (loading `obj` if any) and find the entry."""
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
        pool.attach(self.engine, program)  # one process-wide pool (pool.py)
        address = self.engine.get_function_address(program.entry)
        if not address:
            raise RuntimeError(f"the object defines no {program.entry}")
        self.entry = EntryFn(address)
        if self.perf and obj is not None:
            if self.perf_labels is None:  # an IR-level hit brings the build's own
                self.perf_labels = perfmap.kernel_labels(program.kernels, self.module)
            lines = perfmap.map_lines(
                obj, self.engine.get_function_address, self.perf_labels
            )
            self.perf_map = perfmap.write_map(lines)

    def _build(
        self,
        program: Program,
        opt: int,
        bisect_limit: int | None,
        echo_bisect: bool,
        prebuilt: llvm_worker.Pending | None,
    ) -> bytes | None:
        """Set `module`; return the object MCJIT is to load (None: it compiles the
        module itself, which then is optimized)."""
        parts = split_parts(program, opt)
        self.light = parts.names if parts is not None else ()
        if bisect_limit is not None:
            # invalid IR fails here, not in the child
            self.module = _parse_keyed(program, self.debug_key, parts)
            light = None
            if parts is not None:
                _parse(program, parts.light)
                light = parts.light
            result = llvm_worker.compile_object(
                str(self.module), opt, bisect_limit, light
            )
            self.bisect_log = result.bisect_log
            if echo_bisect and result.bisect_log:
                sys.stderr.write("".join(f"{ln}\n" for ln in result.bisect_log))
            if result.stderr:
                sys.stderr.write(result.stderr)
            return result.object
        if prebuilt is not None:
            self.module = _parse_keyed(program, self.debug_key)
            return prebuilt.result().object
        self.module = _parse_keyed(program, self.debug_key, parts)
        light = _parse(program, parts.light) if parts is not None else None
        optimize(self.module, opt, light)
        if self.store is None and not self.perf:
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
        cache_key = objcache.cache_key(program.llvm_ir, opt, key)
        if objcache.load_object(cache_key, _object_check(key), count=False):
            return None
        parts = split_parts(program, opt)
        main = str(_parse_keyed(program, key, parts))
        return llvm_worker.start_object(
            main, opt, light=parts.light if parts is not None else None
        )

    def symbol_address(self, name: str) -> int:
        return self.engine.get_function_address(name)


def _options(options: CompileOptions | None, opt: int, debug: bool) -> CompileOptions:
    return options or CompileOptions(opt_level=f"O{opt}", debug=debug)


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0][:200]


def _object_check(debug_key: str):
    """A cached object's last check before LLVM sees it (objcache verified its bytes):
    a relocatable 64-bit ELF whose sections lie inside it and whose debug-key note is
    this build's (so no other build's object runs under this key)."""

    def check(obj: bytes) -> str | None:
        try:
            elf = Elf(obj)
            end = max(
                (s.offset + s.size for s in elf.sections if s.type != SHT_NOBITS),
                default=0,
            )
            key = elf.cuvil_key
        except (ValueError, struct.error, IndexError) as e:
            return f"holds a malformed ELF object ({e})"
        if not elf.relocatable or end > len(obj):
            return "holds an ELF file that is not a whole relocatable object"
        if key != debug_key:
            return f"holds the object of another build (debug key {key})"
        return None

    return check
