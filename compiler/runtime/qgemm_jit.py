"""One int8 / bf16 GEMM kernel JIT-compiled alone, for tests and benchmarks/bench_quant.py.

``compile_qgemm(plan, epilogue)`` emits qgemm.py's (or amx.py's) function into a fresh
module, optimizes it at O3 for the host and JITs it with MCJIT; call the result with
torch tensors: ``kernel(c, a, b_packed, corr, mult, bias)``. Models never use this.
"""

from __future__ import annotations

import ctypes

import llvmlite.ir as ir

from ..codegen.qgemm import QGemmPlan, qgemm_fn
from ..codegen.qsimd import QEpilogue
from .gemm_jit import _target_machine

__all__ = ["QGemmKernel", "compile_qgemm"]


class QGemmKernel:
    """A compiled quantized GEMM; ``kernel(c, a, b, corr, mult, bias)`` (None: null)."""

    def __init__(self, engine, address: int, plan: QGemmPlan, ir_text: str) -> None:
        self.engine, self.plan, self.ir_text = engine, plan, ir_text
        self.raw = ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * 6)(address)

    def __call__(self, c, a, b, corr=None, mult=None, bias=None) -> None:
        self.raw(
            *[
                t.data_ptr() if t is not None else None
                for t in (c, a, b, corr, mult, bias)
            ]
        )


def compile_qgemm(plan: QGemmPlan, ep: QEpilogue, name: str = "qgemm") -> QGemmKernel:
    """Emit, optimize at O3 for the host, JIT (AMX: the caller has cpu.request_amx())."""
    import llvmlite.binding as llvm

    from ..codegen.target import optimize

    tm = _target_machine()
    module = ir.Module(name=name)
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    fn = qgemm_fn(module, plan, ep)
    fn.linkage = "external"
    text = str(module)
    mod = llvm.parse_assembly(text)
    mod.verify()
    optimize(mod, 3)
    engine = llvm.create_mcjit_compiler(mod, tm)
    engine.finalize_object()
    return QGemmKernel(engine, engine.get_function_address(fn.name), plan, text)
