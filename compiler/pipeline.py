"""The compiler driver: ``cuvil.compile`` and the one function that runs every stage.

capture+lower (frontend) -> verify -> passes -> codegen (LLVM IR) -> JIT -> CompiledModule
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from .codegen.generator import generate
from .codegen.target import OPT_LEVELS
from .errors import CuvilError
from .frontend import FRONTENDS, lower
from .hooks import CompileHooks
from .ir.core import Module
from .ir.verifier import verify
from .passes import llvm_bisect_limit, run_passes
from .runtime.compiled import CompiledModule
from .runtime.jit import JitModule

__all__ = ["compile", "compile_module", "Options", "TARGETS"]

TARGETS = ("cpu",)


@dataclass(frozen=True)
class Options:
    """Compilation options; ``cuvil.compile(..., options={...})`` takes these keys."""

    opt_level: str = "O3"  # O0..O3: LLVM's pipeline (and, with passes, Cuvil's)
    enable_fusion: bool = True  # fuse elementwise chains and epilogues (pass pipeline)
    debug: bool = False  # DWARF + GDB JIT registration, non-inlined kernels
    frontend: str = "fx"  # "fx" (torch.fx.symbolic_trace) or "export" (torch.export)
    num_threads: int = 1
    profile: bool = False  # count cycles per kernel: CompiledModule.profile()
    # pass pipeline (docs/PASSES.md): None = the opt level's default pipeline
    pipeline: str | None = None
    bisect_limit: int | None = None  # apply only the first N pass actions
    llvm_bisect_limit: int | None = (
        None  # LLVM's -opt-bisect-limit for its own pipeline
    )
    print_after_all: bool = False  # IR after every pass, on stderr
    print_after_change: bool = False  # unified diff of the IR after each changing pass
    snapshot_dir: str | None = None  # write DIR/0001-<pass>.cuvilir after each pass
    verify_each: bool = False  # verify after every pass (always on with debug)

    @staticmethod
    def parse(options: dict[str, Any] | None) -> Options:
        options = dict(options or {})
        known = Options.__dataclass_fields__
        for key in options:
            if key not in known:
                raise CuvilError(
                    f"unknown option '{key}'", hint=f"known options: {', '.join(known)}"
                )
        opts = Options(**options)
        opts._check()
        return opts

    def _check(self) -> None:
        if self.opt_level not in OPT_LEVELS:
            raise CuvilError(
                f"option opt_level={self.opt_level!r} is not one of "
                f"{', '.join(OPT_LEVELS)}"
            )
        for key in (
            "enable_fusion",
            "debug",
            "profile",
            "print_after_all",
            "print_after_change",
            "verify_each",
        ):
            if not isinstance(getattr(self, key), bool):
                raise CuvilError(
                    f"option {key}={getattr(self, key)!r} must be True or False"
                )
        if self.frontend not in FRONTENDS:
            raise CuvilError(
                f"option frontend={self.frontend!r} is not one of {FRONTENDS}"
            )
        if not isinstance(self.num_threads, int) or self.num_threads < 1:
            raise CuvilError(
                f"option num_threads={self.num_threads!r} must be an int >= 1"
            )
        for key in ("bisect_limit", "llvm_bisect_limit"):
            value = getattr(self, key)
            if value is not None and (not isinstance(value, int) or value < 0):
                raise CuvilError(f"option {key}={value!r} must be None or an int >= 0")
        for key in ("pipeline", "snapshot_dir"):
            if getattr(self, key) is not None and not isinstance(
                getattr(self, key), str
            ):
                raise CuvilError(
                    f"option {key}={getattr(self, key)!r} must be a string"
                )

    @property
    def opt(self) -> int:
        return OPT_LEVELS[self.opt_level]


def compile_module(
    module: Module,
    options: Options,
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
        profile=options.profile,
        threads=options.num_threads,
        hooks=hooks,
    )
    with llvm_bisect_limit(options.llvm_bisect_limit):
        jit = JitModule(
            program, options.opt, debug=options.debug, echo_bisect=echo_llvm_bisect
        )
    return CompiledModule(module, program, jit, options.__dict__)


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
    opts = Options.parse(options)
    if not isinstance(model, torch.nn.Module):
        raise CuvilError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    was_training = model.training
    model.eval()
    try:
        module = lower(model, list(inputs), opts.frontend, hooks=hooks)
    finally:
        model.train(was_training)
    return compile_module(module, opts, hooks=hooks)
