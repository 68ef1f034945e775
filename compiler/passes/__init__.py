"""Cuvil's pass pipeline: passes by name, pipelines as strings, instrumentation, bisection.

    from cuvil.passes import PassPipeline
    PassPipeline("fold-bn,fuse-elementwise,dce", callback=PrintAfterChange()).run(module)

``build_pipeline(options)`` is the pipeline ``cuvil.compile`` (through
``run_passes(module, options)``), ``cuvil-opt`` and ``cuvil-debug passes`` run
(docs/PASSES.md).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

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
    "build_pipeline",
    "run_passes",
    "describe_bisect",
    "has_qdq",
    "QDQ_EXTRA",
]


def build_pipeline(
    options,
    *,
    extras: Sequence[tuple[str, str]] = (),
    stream: TextIO | None = None,
) -> PassPipeline:
    """The instrumented pass pipeline `options` ask for: ``cuvil.compile``,
    ``cuvil-opt`` and ``cuvil-debug passes`` all build theirs here.

    `options` is a ``cuvil.options.CompileOptions``: the pipeline is its ``pipeline``
    text or the default pipeline of its ``opt_level`` (``enable_fusion``), with
    `extras` (``(anchor pass, item)``) where the default pipeline inserts them; its
    debug options add print-after-all / print-after-change (on `stream`, default
    stderr) and snapshots (``snapshot_dir``); ``verify_each`` (or ``debug``) verifies
    the IR after every pass. Run it with ``PassContext(bisect_limit)``; the pass
    table (timing, actions) is in its ``infos``."""
    text = options.pipeline
    if text is None:
        text = default_pipeline(options.opt_level, options.enable_fusion, extras=extras)
    watch = options.debug_options
    out = sys.stderr if stream is None else stream
    callback = combine(
        PrintAfterAll(out) if watch.print_after_all else None,
        PrintAfterChange(out) if watch.print_after_change else None,
        Snapshots(Path(watch.snapshot_dir)) if watch.snapshot_dir else None,
    )
    return PassPipeline(text, callback, verify_each=watch.verify_each or options.debug)


def run_passes(module: Module, options, hooks: CompileHooks | None = None) -> Module:
    """Run ``build_pipeline(options)`` on `module` (`options`: a CompileOptions), with
    its debug options' ``bisect_limit`` and the ``hooks.passes`` extras (cuvil.hooks);
    the pass table is kept in ``module.passes``."""
    extras = tuple(hooks.passes) if hooks is not None else ()
    if has_qdq(module):  # quantize / dequantize ops: fold them first (docs/QUANT.md)
        extras = (QDQ_EXTRA, *extras)
    pipeline = build_pipeline(options, extras=extras)
    limit = options.debug_options.bisect_limit
    ctx = pipeline.run(module, PassContext(limit))
    module.passes = pipeline.infos
    if limit is not None:
        print(f"cuvil: {describe_bisect(ctx)}", file=sys.stderr)
    return module


# fold-qdq runs right after the default pipelines' first dce, before fold-constants
# folds a dequantized weight into a float one (O0's empty pipeline: it runs alone)
QDQ_EXTRA = ("dce", "fold-qdq")
_QDQ_OPS = frozenset(
    {
        "cuvil.quantize",
        "cuvil.dequantize",
        "cuvil.round_bf16",
        "cuvil.fake_quantize_dynamic",
    }
)


def has_qdq(module: Module) -> bool:
    """Whether the module has quantization ops for ``fold-qdq`` to fold."""
    return any(op.name in _QDQ_OPS for fn in module.functions for op in fn.ops)


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
