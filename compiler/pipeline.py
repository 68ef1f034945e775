"""The compiler driver: ``cuvil.compile`` and the one function that runs every stage.

capture+lower (frontend) -> verify -> passes -> codegen (LLVM IR) -> JIT -> CompiledModule
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from .codegen.generator import generate
from .errors import CuvilError
from .frontend import lower
from .hooks import CompileHooks
from .ir.core import Module
from .ir.verifier import verify
from .options import CompileOptions, Options
from .passes import run_passes
from .runtime.compiled import CompiledModule
from .runtime.jit import JitModule

__all__ = ["compile", "compile_module", "CompileOptions", "Options", "TARGETS"]

TARGETS = ("cpu",)


def compile_module(
    module: Module,
    options: CompileOptions,
    *,
    echo_llvm_bisect: bool = True,
    hooks: CompileHooks | None = None,
) -> CompiledModule:
    """Cuvil IR -> native code: the stages after capture, each one line.

    With ``llvm_bisect_limit`` LLVM runs in a child process (runtime/llvm_worker.py);
    its ``BISECT:`` lines are in ``compiled.jit.bisect_log`` and, with
    `echo_llvm_bisect`, on stderr. `hooks`: the seams of cuvil.hooks (passes, kernels)."""
    verify(module)
    module = run_passes(module, options, hooks)
    program = generate(
        module,
        debug=options.debug,
        profile=options.debug_options.profile,
        threads=options.num_threads,
        hooks=hooks,
        break_on=options.break_on,
    )
    jit = JitModule(
        program,
        options.opt,
        debug=options.debug,
        bisect_limit=options.debug_options.llvm_bisect_limit,
        echo_bisect=echo_llvm_bisect,
        options=options,
    )
    return CompiledModule(module, program, jit, options)


def compile(
    model: torch.nn.Module,
    inputs: Sequence[torch.Tensor],
    target: str = "cpu",
    options: dict[str, Any] | None = None,
    hooks: CompileHooks | None = None,
) -> CompiledModule:
    """Compile `model` for the shapes of `inputs`; returns a callable CompiledModule.

    `hooks` (cuvil.hooks.CompileHooks): callbacks after each FX node is lowered, extra
    default-pipeline passes, callbacks after each kernel is emitted; for this call only."""
    if target not in TARGETS:
        raise CuvilError(
            f"unknown target '{target}'", hint=f"supported targets: {TARGETS}"
        )
    opts = CompileOptions.parse(options)
    if hooks is not None and not isinstance(hooks, CompileHooks):
        raise CuvilError(
            f"hooks must be a cuvil.CompileHooks or None, got {type(hooks).__name__}",
            hint="cuvil.CompileHooks(after_node=..., passes=..., after_kernel=...)",
        )
    if not isinstance(model, torch.nn.Module):
        raise CuvilError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    was_training = model.training
    model.eval()
    try:
        module = lower(
            model, list(inputs), opts.frontend, hooks=hooks, decompose=opts.decompose
        )
    finally:
        model.train(was_training)
    return compile_module(module, opts, hooks=hooks)
