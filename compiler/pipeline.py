"""The compiler driver: ``cuvil.compile`` and the one function that runs every stage.

capture+lower (frontend) -> verify -> passes -> codegen (LLVM IR) -> JIT -> CompiledModule
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any

import torch

from . import collector, metrics
from .codegen.generator import generate
from .debuglevel import CompileWatch, report_quantization
from .errors import CodegenError, CuvilError
from .frontend import capture
from .frontend.dynamic_shapes import derive_dims
from .hooks import CompileHooks
from .ir.core import Module
from .ir.verifier import verify
from .options import DYNAMIC_KEYS, CompileOptions, Options
from .passes import has_qdq, run_passes
from .quantize import calibration_batches, quantize_module
from .runtime import ircache
from .runtime.compiled import CompiledModule
from .runtime.dynamic import DynamicCompiledModule
from .runtime.jit import JitModule

__all__ = ["compile", "compile_module", "CompileOptions", "Options", "TARGETS"]

TARGETS = ("cpu",)


def compile_module(
    module: Module,
    options: CompileOptions,
    *,
    echo_llvm_bisect: bool = True,
    hooks: CompileHooks | None = None,
    lower_seconds: float | None = None,
) -> CompiledModule:
    """Cuvil IR -> native code: the stages after capture, each one line.

    With ``llvm_bisect_limit`` LLVM runs in a child process (runtime/llvm_worker.py);
    its ``BISECT:`` lines are in ``compiled.jit.bisect_log`` and, with
    `echo_llvm_bisect`, on stderr. `hooks`: the seams of cuvil.hooks (passes, kernels).
    Each stage is timed for ``CUVIL_DEBUG`` (debuglevel.py) and cuvil.metrics;
    `lower_seconds`: the capture's time, measured by the caller. Python's cyclic
    garbage collector is paused meanwhile (collector.py)."""
    with collector.paused():
        return _compile_module(module, options, echo_llvm_bisect, hooks, lower_seconds)


def _compile_module(
    module: Module,
    options: CompileOptions,
    echo_llvm_bisect: bool,
    hooks: CompileHooks | None,
    lower_seconds: float | None,
) -> CompiledModule:
    watch = CompileWatch({"lower": lower_seconds} if lower_seconds is not None else {})
    with watch.stage("passes"):
        verify(module)
        module = run_passes(module, watch.pass_options(options, module.name), hooks)
    with watch.stage("codegen"):
        found = ircache.lookup(module, options, hooks)  # the IR-fingerprint level
        program = found.program or generate(
            module, hooks=hooks, **ircache.codegen_args(options)
        )
    _check_param_data(module, program)
    with watch.stage("llvm"):
        jit = JitModule(
            program,
            options.opt,
            debug=options.debug,
            bisect_limit=options.debug_options.llvm_bisect_limit,
            echo_bisect=echo_llvm_bisect,
            options=options,
            reuse=ircache.reuse(found),
        )
        ircache.finish(found, program, jit)
    compiled = metrics.module_class()(module, program, jit, options)
    metrics.record_compile(watch.seconds, jit)
    watch.report(compiled)
    return compiled


def _check_param_data(module: Module, program) -> None:
    """Every param the code reads has data (IR read from text may declare params
    without any): a CodegenError before the JIT, not a KeyError after it."""
    have = {**module.param_data, **program.derived}
    missing = [name for name in program.params if name not in have]
    if missing:
        raise CodegenError(
            f"param @{missing[0]} has no data"
            + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""),
            hint="give the module's params data (cuvil-opt --random-params writes "
            "random ones) or compile a model, whose params carry their values",
        )


def compile(
    model: torch.nn.Module,
    inputs: Sequence[torch.Tensor],
    target: str = "cpu",
    options: dict[str, Any] | None = None,
    hooks: CompileHooks | None = None,
    *,
    quantize: Any = None,
    calibration_data: Sequence[Any] | None = None,
) -> CompiledModule | DynamicCompiledModule:
    """Compile `model` for the shapes of `inputs`; returns a callable CompiledModule.

    `hooks` (cuvil.hooks.CompileHooks): callbacks after each FX node is lowered, extra
    default-pipeline passes, callbacks after each kernel is emitted; for this call only.
    With options ``dynamic_shapes`` / ``dynamic=True`` (docs/DYNAMIC.md): a
    DynamicCompiledModule, one build per input shape within the declared dims.
    `quantize` ("int8", "bf16" or a dict; also the option key ``quantize``) and
    `calibration_data` (batches of inputs, static int8): docs/QUANT.md."""
    if target not in TARGETS:
        raise CuvilError(
            f"unknown target '{target}'", hint=f"supported targets: {TARGETS}"
        )
    flat = dict(options or {})
    dyn = {k: flat.pop(k) for k in DYNAMIC_KEYS if k in flat}
    if quantize is not None:
        if flat.get("quantize") is not None:
            raise CuvilError("quantize is given twice: as an argument and an option")
        flat["quantize"] = quantize
    opts = CompileOptions.parse(flat)
    if hooks is not None and not isinstance(hooks, CompileHooks):
        raise CuvilError(
            f"hooks must be a cuvil.CompileHooks or None, got {type(hooks).__name__}",
            hint="cuvil.CompileHooks(after_node=..., passes=..., after_kernel=...)",
        )
    if not isinstance(model, torch.nn.Module):
        raise CuvilError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if dyn.get("dynamic", False) not in (True, False):
        raise CuvilError(f"option dynamic={dyn['dynamic']!r} must be True or False")
    batches = calibration_batches(calibration_data, len(inputs))
    if dyn.get("dynamic") or dyn.get("dynamic_shapes") is not None:
        if batches:
            raise CuvilError(
                "static int8 (calibration_data) is not supported with dynamic shapes",
                hint='compile one static shape, or use quantize={"int8": True, '
                '"dynamic": True} or "bf16"',
            )
        return _compile_dynamic(model, list(inputs), opts, hooks, dyn)
    return _compile_static(model, list(inputs), opts, hooks, batches)


def _compile_static(model, inputs, opts, hooks, batches=()) -> CompiledModule:
    was_training = model.training
    model.eval()
    start = time.perf_counter()
    try:
        captured = capture(
            model, inputs, opts.frontend, hooks=hooks, decompose=opts.decompose
        )
    finally:
        model.train(was_training)
    module, info = captured.module, None
    if opts.quantize is not None:  # the QDQ form (quantize.py, docs/QUANT.md)
        if has_qdq(module):
            raise CuvilError(
                "the model is already quantized (it has quantize / dequantize ops)",
                hint="compile it without quantize=: its q/dq ops are folded as they are",
            )
        module, info = quantize_module(module, opts.quantize, list(batches))
        opts = dataclasses.replace(opts, quantize=info.options)  # the isa resolved
    lowered = time.perf_counter() - start
    compiled = compile_module(module, opts, hooks=hooks, lower_seconds=lowered)
    compiled.frontend, compiled.frontend_notes = captured.frontend, captured.notes
    compiled.quantization = info
    report_quantization(info)  # CUVIL_DEBUG >= 1: the layers kept in float32, why
    return compiled


def _compile_dynamic(model, inputs, opts, hooks, dyn) -> DynamicCompiledModule:
    """torch.export checks the declared dims and gives their ranges; each shape is then
    compiled as a static model (runtime/dynamic.py) with the frontend the first used."""
    was_training = model.training
    model.eval()
    try:
        dims = derive_dims(
            model, inputs, dyn.get("dynamic_shapes"), bool(dyn.get("dynamic"))
        )
    finally:
        model.train(was_training)
    first = _compile_static(model, inputs, opts, hooks)
    chosen = dataclasses.replace(opts, frontend=first.frontend)

    def build(new_inputs: list[torch.Tensor]) -> CompiledModule:
        compiled = _compile_static(model, new_inputs, chosen, hooks)
        compiled.frontend_notes = first.frontend_notes
        return compiled

    names = [a.name or f"input{i}" for i, a in enumerate(first.module.main.args)]
    return DynamicCompiledModule(
        build, first, inputs, dims, names, who=type(model).__name__
    )
