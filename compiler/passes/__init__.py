"""Cuvil's pass pipeline: passes by name, pipelines as strings, instrumentation, bisection.

    from cuvil.passes import PassPipeline
    PassPipeline("fold-bn,fuse-elementwise,dce", callback=PrintAfterChange()).run(module)

``run_passes(module, options)`` is what ``cuvil.compile`` calls (docs/PASSES.md).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

from ..hooks import CompileHooks
from ..ir.core import Module
from .base import Action, ModulePass, PassContext
from .instrument import (
    Callback,
    PassInfo,
    PrintAfterAll,
    PrintAfterChange,
    Snapshots,
    TimingReport,
    combine,
    format_table,
    ir_diff,
)
from .pipeline import (
    DEFAULT_PIPELINES,
    PassPipeline,
    default_pipeline,
    format_pass,
    parse_pipeline,
)
from .registry import ENTRY_POINT_GROUP, get_pass, known_passes, register_pass

__all__ = [
    "Action",
    "ModulePass",
    "PassContext",
    "Callback",
    "PassInfo",
    "PrintAfterAll",
    "PrintAfterChange",
    "Snapshots",
    "TimingReport",
    "combine",
    "format_table",
    "ir_diff",
    "DEFAULT_PIPELINES",
    "PassPipeline",
    "default_pipeline",
    "format_pass",
    "parse_pipeline",
    "ENTRY_POINT_GROUP",
    "get_pass",
    "known_passes",
    "register_pass",
    "run_passes",
    "llvm_bisect_limit",
    "describe_bisect",
]


def run_passes(module: Module, options, hooks: CompileHooks | None = None) -> Module:
    """Run the pipeline `options` ask for (``cuvil.compile``'s Options) on `module`.

    The pipeline is ``options.pipeline`` or the opt level's default (plus the
    ``hooks.passes`` extras, see cuvil.hooks); instrumentation comes
    from print_after_all / print_after_change / snapshot_dir; ``verify_each`` (or debug)
    verifies after every pass. The pass table is kept in ``module.passes``.
    """
    text = options.pipeline
    if text is None:
        extras = hooks.passes if hooks is not None else ()
        text = default_pipeline(options.opt_level, options.enable_fusion, extras)
    callback = combine(
        PrintAfterAll() if options.print_after_all else None,
        PrintAfterChange() if options.print_after_change else None,
        Snapshots(Path(options.snapshot_dir)) if options.snapshot_dir else None,
    )
    pipeline = PassPipeline(
        text, callback, verify_each=options.verify_each or options.debug
    )
    ctx = pipeline.run(module, PassContext(options.bisect_limit))
    module.passes = pipeline.infos
    if options.bisect_limit is not None:
        print(f"cuvil: {describe_bisect(ctx)}", file=sys.stderr)
    return module


def describe_bisect(ctx: PassContext) -> str:
    """``bisect-limit N: applied A of T actions; last applied: #A pass: what``."""
    last = ctx.last_applied
    text = (
        f"bisect-limit {ctx.bisect_limit}: applied {len(ctx.applied)} of "
        f"{len(ctx.actions)} actions"
    )
    if last is None:
        return text + "; none applied"
    return text + f"; last applied: #{last.index} {last.pass_name}: {last.description}"


@contextlib.contextmanager
def llvm_bisect_limit(limit: int | None):
    """LLVM's ``-opt-bisect-limit`` for the JIT modules built inside (``JitModule``
    without a limit of its own; ``cuvil.compile`` sets it from ``llvm_bisect_limit``).

    Each such module is optimized and compiled in a short-lived child process with a
    fresh pass counter (``runtime/llvm_worker.py``), never cached: this process's LLVM
    options are not touched (LLVM cannot undo the option once set). LLVM's ``BISECT:``
    lines are in ``JitModule.bisect_log`` and written on stderr. None: no change."""
    if limit is None:
        yield
        return
    from ..runtime import llvm_worker

    token = llvm_worker.LIMIT.set(int(limit))
    try:
        yield
    finally:
        llvm_worker.LIMIT.reset(token)
