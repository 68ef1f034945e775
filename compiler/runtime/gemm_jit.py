"""One GEMM or convolution kernel JIT-compiled alone, for tests, benchmarks and tuning.

``compile_gemm(plan, **options)`` emits ``emit_gemm``'s function into a fresh module
and JITs it with MCJIT for the host, compiled as a model's build compiles it (no IR
passes over the hand-vectorized kernel, codegen/lightsplit.py; O3 over the rest); the
result is called with torch tensors. ``compile_conv(plan, **options)`` does the same for the direct convolution
(conv.py) and its border copy. Models go through ``jit.JitModule`` instead.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

import llvmlite.ir as ir
import torch

from ..codegen.conv import emit_conv, emit_pad
from ..codegen.conv_plan import ConvPlan
from ..codegen.gemm import GemmPlan, emit_gemm
from ..codegen.lightsplit import light_names, split
from ..codegen.target import optimize

__all__ = ["GemmKernel", "ConvKernel", "compile_gemm", "compile_conv"]


class GemmKernel:
    """A compiled GEMM; call with torch tensors: ``kernel(c, a, b, bias, residual)``."""

    def __init__(self, engine, address: int, plan: GemmPlan, ir_text: str):
        self.engine, self.plan, self.ir_text = engine, plan, ir_text
        proto = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 5)
        self._fn = proto(address)

    def __call__(self, c, a, b, bias=None, residual=None) -> None:
        ptrs = [
            t.data_ptr() if t is not None else None for t in (c, a, b, bias, residual)
        ]
        self._fn(*ptrs)

    def raw(self) -> Callable:
        """The ctypes function itself (5 addresses), for low-overhead timing."""
        return self._fn


def _target_machine():
    """A fresh host TargetMachine: an MCJIT engine takes ownership of its own."""
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=3,
        jit=True,
    )


def _jit(name: str, emit) -> tuple:
    """(engine, IR text) of the module `emit(module)` fills, compiled like a model's."""
    import llvmlite.binding as llvm

    tm = _target_machine()
    module = ir.Module(name=name)
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    emit(module)
    text = str(module)
    # as a model's build compiles them: hand-vectorized kernels without IR passes
    parts = split(text, light_names(module))
    mod = llvm.parse_assembly(text if parts is None else parts.main)
    mod.verify()
    optimize(mod, 3, None if parts is None else llvm.parse_assembly(parts.light))
    engine = llvm.create_mcjit_compiler(mod, tm)
    engine.finalize_object()
    return engine, text


def compile_gemm(plan: GemmPlan, name: str = "gemm", **options) -> GemmKernel:
    """Emit one kernel into a fresh module and JIT it for the host."""
    engine, text = _jit(name, lambda m: emit_gemm(m, name, plan, **options))
    return GemmKernel(engine, engine.get_function_address(name), plan, text)


class ConvKernel:
    """A compiled direct convolution: ``kernel(out, x, packed_w, bias, residual)``
    (NHWC tensors; the border copy, if the plan has one, runs first)."""

    def __init__(self, engine, plan: ConvPlan, ir_text: str) -> None:
        self.engine, self.plan, self.ir_text = engine, plan, ir_text
        vp, i64 = ctypes.c_void_p, ctypes.c_int64
        self._conv = ctypes.CFUNCTYPE(None, *[vp] * 6, i64, i64)(
            engine.get_function_address("conv")
        )
        pad = engine.get_function_address("pad") if plan.copies_input else 0
        self._pad = ctypes.CFUNCTYPE(None, vp, vp)(pad) if pad else None
        self._scratch = torch.empty(max(plan.scratch_bytes // 4, 16))

    def __call__(self, out, x, w, bias=None, residual=None, first=0, count=None):
        ptrs = [
            t.data_ptr() if t is not None else None for t in (out, x, w, bias, residual)
        ]
        xpad = self._scratch.data_ptr() if self.plan.copies_input else ptrs[1]
        if self._pad is not None:
            self._pad(xpad, ptrs[1])
        count = self.plan.items - first if count is None else count
        self._conv(*ptrs, xpad, first, count)


def compile_conv(plan: ConvPlan, **options) -> ConvKernel:
    """The direct convolution of `plan` (and its border copy) JIT-compiled at O3."""

    def emit(module):
        emit_conv(module, "conv", plan, **options)
        if plan.copies_input:
            emit_pad(module, "pad", plan)

    engine, text = _jit("conv", emit)
    return ConvKernel(engine, plan, text)
