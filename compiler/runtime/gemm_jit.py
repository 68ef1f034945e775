"""One GEMM kernel JIT-compiled alone, for the GEMM tests and benchmarks/bench_gemm.py.

``compile_gemm(plan, **options)`` emits ``emit_gemm``'s function into a fresh module,
optimizes it at O3 for the host and JITs it with MCJIT; the result is called with torch
tensors. The compiler itself never uses this (models go through ``jit.JitModule``).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

import llvmlite.ir as ir

from ..codegen.gemm import GemmPlan, emit_gemm

__all__ = ["GemmKernel", "compile_gemm"]


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


def compile_gemm(plan: GemmPlan, name: str = "gemm", **options) -> GemmKernel:
    """Emit one kernel into a fresh module, optimize at O3 for the host, JIT it."""
    import llvmlite.binding as llvm

    tm = _target_machine()
    module = ir.Module(name=name)
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    emit_gemm(module, name, plan, **options)
    text = str(module)
    mod = llvm.parse_assembly(text)
    mod.verify()
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    engine = llvm.create_mcjit_compiler(mod, tm)
    engine.finalize_object()
    return GemmKernel(engine, engine.get_function_address(name), plan, text)
