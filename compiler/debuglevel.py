"""The debug ladder: ``CUVIL_DEBUG=1..5`` and ``cuvil.debug_level(n)`` (tinygrad's DEBUG).

    0  nothing (the default)
    1  one line per compile: the seconds of each stage, the object cache's hit or miss
    2  + the pass table (pass, changed, actions, ms) and the kernel table
    3  + the IR after each pass (the pipeline's print-after-all, or its snapshots)
    4  + the LLVM IR that code generation hands to LLVM
    5  + the assembly LLVM makes of it (an extra LLVM run: only here)

Everything goes to stderr; with ``CUVIL_DEBUG_DIR`` the big dumps (levels 3-5) are files
in a fresh folder per compile, ``DIR/<pid>-<n>-<model>/`` (``0001-<pass>.cuvilir`` ...,
``module.ll``, ``module.s``), and stderr says where. ``debug_level(n)`` sets the level
for the code inside it, in this thread or task only (a contextvar), over the
environment's; an invalid ``CUVIL_DEBUG`` (not 0..5) is a CuvilError at the compile.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from .errors import CuvilError
from .options import CompileOptions
from .passes import format_table

__all__ = [
    "ENV",
    "DIR_ENV",
    "MAX_LEVEL",
    "level",
    "debug_level",
    "CompileWatch",
    "report_quantization",
]

ENV, DIR_ENV = "CUVIL_DEBUG", "CUVIL_DEBUG_DIR"
MAX_LEVEL = 5
_HINT = (
    "use 0 (off) to 5: 1 stage times and cache hits, 2 pass and kernel tables, "
    "3 IR after each pass, 4 LLVM IR, 5 assembly (docs/OPERATIONS.md)"
)
_scoped: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "cuvil_debug_level", default=None
)
_serial = itertools.count(1)


def level() -> int:
    """The debug level in force here: `debug_level`'s, else ``$CUVIL_DEBUG``'s, else 0."""
    scoped = _scoped.get()
    if scoped is not None:
        return scoped
    text = os.environ.get(ENV, "").strip()
    if not text:
        return 0
    if not re.fullmatch(r"[0-9]+", text) or int(text) > MAX_LEVEL:
        raise CuvilError(f"{ENV}={text!r} is not a debug level", hint=_HINT)
    return int(text)


@contextlib.contextmanager
def debug_level(n: int) -> Iterator[None]:
    """Compile at debug level `n` (0..5) inside the block; the level before is back
    after it. Per thread and per asyncio task (a contextvar)."""
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_LEVEL:
        raise CuvilError(
            f"debug_level({n!r}): the level must be an int 0..5", hint=_HINT
        )
    token = _scoped.set(n)
    try:
        yield
    finally:
        _scoped.reset(token)


class CompileWatch:
    """Times the stages of one compile and writes what its debug level asks for.

    `stage(name)` times a block (lower, passes, codegen, llvm); `pass_options` is what
    the pass pipeline runs with (level 3: print-after-all or snapshots); `report`
    writes levels 1, 2, 4, 5 after the compile. `seconds` feeds cuvil.metrics too."""

    def __init__(self, seconds: dict[str, float] | None = None) -> None:
        self.level = level()
        self.seconds: dict[str, float] = dict(seconds or {})
        self.folder: Path | None = None

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        yield
        self.seconds[name] = time.perf_counter() - start

    def pass_options(self, options: CompileOptions, name: str) -> CompileOptions:
        if self.level < 3:
            return options
        if os.environ.get(DIR_ENV):
            safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:60]
            self.folder = Path(os.environ[DIR_ENV]) / (
                f"{os.getpid()}-{next(_serial):04d}-{safe}"
            )
            self.folder.mkdir(parents=True, exist_ok=True)
            if options.debug_options.snapshot_dir:  # the user's snapshots stay theirs
                return options
            return options.with_debug(snapshot_dir=str(self.folder))
        return options.with_debug(print_after_all=True)

    def report(self, compiled) -> None:
        """Levels 1, 2, 4, 5 for `compiled` (a CompiledModule), on stderr."""
        if self.level < 1:
            return
        out = sys.stderr
        out.write(_summary(compiled, self.seconds) + "\n")
        if self.level >= 2:
            out.write(f"cuvil: passes of {compiled.module.name}\n")
            out.write(format_table(compiled.module.passes or []) + "\n")
            out.write(f"cuvil: kernels of {compiled.module.name}\n")
            out.write(_kernel_table(compiled.program.kernels) + "\n")
        if self.level >= 4:
            self._dump("LLVM IR", "module.ll", compiled.program.llvm_ir)
        if self.level >= 5:
            self._dump("assembly", "module.s", _assembly(compiled))
        if self.folder is not None:
            out.write(
                f"cuvil: debug dumps of {compiled.module.name} in {self.folder}\n"
            )

    def _dump(self, what: str, filename: str, text: str) -> None:
        if self.folder is not None:
            (self.folder / filename).write_text(text, encoding="utf-8")
            return
        sys.stderr.write(f"// ----- {what} -----\n{text.rstrip()}\n")


def report_quantization(info) -> None:
    """Level 1+: one line of what ``quantize=`` did (a quantize.QuantInfo): the layers
    per status and each float32 fallback with its reason."""
    if info is None or level() < 1:
        return
    counts: dict[str, int] = {}
    for layer in info.layers:
        counts[layer.status] = counts.get(layer.status, 0) + 1
    kept = "; ".join(
        f"{ly.name}: {ly.reason}" for ly in info.layers if ly.status == "float"
    )
    tally = ", ".join(f"{n} {status}" for status, n in counts.items())
    sys.stderr.write(
        f"cuvil: quantize {info.options.mode} (isa {info.options.isa}): {tally}"
        + (f"; float32: {kept}" if kept else "")
        + "\n"
    )


def _summary(compiled, seconds: dict[str, float]) -> str:
    times = ", ".join(f"{stage} {s * 1e3:.1f} ms" for stage, s in seconds.items())
    jit = compiled.jit
    if not getattr(jit, "cache_used", False):
        cache = "object cache not used"
    else:
        cache = f"object cache {'hit' if jit.cache_hit else 'miss'}"
    if getattr(jit, "ir_cache_used", False):
        cache = f"IR cache {'hit' if jit.ir_cache_hit else 'miss'}, {cache}"
    total = sum(seconds.values()) * 1e3
    return (
        f"cuvil: compiled {compiled.module.name} in {total:.1f} ms ({times}); {cache}"
    )


def _kernel_table(kernels) -> str:
    rows = [("#", "kernel", "op", "nodes", "source")]
    for i, k in enumerate(kernels):
        nodes = ",".join(k.nodes) if k.nodes else "-"
        rows.append((str(i), k.symbol, k.op_name, nodes, k.source or "-"))
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows
    )


def _assembly(compiled) -> str:
    from .codegen.target import target_machine
    from .runtime.jit import parse_and_optimize

    opt = compiled.options.opt
    return target_machine(opt).emit_assembly(parse_and_optimize(compiled.program, opt))
