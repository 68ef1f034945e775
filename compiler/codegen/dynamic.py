"""Dynamic int8: activations quantized at run time, inside the kernel that uses them.

``emit_qparams`` computes ONNX Runtime's DynamicQuantizeLinear parameters of a float32
buffer (u8: ``lo = min(min x, 0)``, ``hi = max(max x, 0)``, ``scale = (hi - lo) / 255``
or 1 when that is 0, ``zp = clamp(roundeven(0 - lo / scale), 0, 255)``) with the float32
operations of ``ir.ops.quant.dynamic_qparams``, so the kernel and the reference agree
bit for bit. ``prepare_dynamic`` is a dynamic ``cuvil.qlinear``: parameters, quantize
the rows into the GEMM's A buffer, the per-column correction ``zp * colsum`` and scale
products ``scale * w_scale`` at run time, then the int8 GEMM.
"""

from __future__ import annotations

import llvmlite.ir as ir
import torch

from ..ir.core import Operation
from ..ir.types import DType
from .kernel import Kernel, Prepared
from .loops import for_range, i64
from .qgemm import QGemmPlan, column_sums, pack_weight, padded, qgemm_call
from .qsimd import F32, I8, I32, QEpilogue

__all__ = ["emit_qparams", "prepare_dynamic"]


def _select_min_max(b: ir.IRBuilder, lo_slot, hi_slot, x) -> None:
    lo, hi = b.load(lo_slot), b.load(hi_slot)
    b.store(b.select(b.fcmp_ordered("<", x, lo), x, lo), lo_slot)
    b.store(b.select(b.fcmp_ordered(">", x, hi), x, hi), hi_slot)


def emit_qparams(k: Kernel, x_ptr, n: int):
    """(scale, inv = 1 / scale, zp) float32 values of the n floats at `x_ptr`."""
    b = k.b
    zero = ir.Constant(F32, 0.0)
    lo_slot, hi_slot = k.alloca(F32, zero, "lo"), k.alloca(F32, zero, "hi")
    with for_range(b, n, name="mm") as i:
        _select_min_max(b, lo_slot, hi_slot, k.load(x_ptr, i, DType.f32))
    lo, hi = b.load(lo_slot), b.load(hi_slot)
    scale = b.fdiv(b.fsub(hi, lo), ir.Constant(F32, 255.0))
    one = ir.Constant(F32, 1.0)
    scale = b.select(b.fcmp_ordered(">", scale, zero), scale, one)
    rnd = b.module.declare_intrinsic("llvm.roundeven", [F32])
    zp = b.call(rnd, [b.fsub(zero, b.fdiv(lo, scale))])
    zp = b.select(b.fcmp_ordered("<", zp, zero), zero, zp)
    top = ir.Constant(F32, 255.0)
    zp = b.select(b.fcmp_ordered(">", zp, top), top, zp)
    return scale, b.fdiv(one, scale), zp


def _quantize_rows(k: Kernel, plan: QGemmPlan, inv, zp) -> None:
    """A[r, c] = clamp(roundeven(x[r, c] * inv) + zp, 0, 255), padding zero."""
    from .qops import memset

    b, dst = k.b, k.scratch(0)
    memset(k, dst, plan.mp * plan.lda)
    rnd = b.module.declare_intrinsic("llvm.roundeven", [F32])
    lo, hi = ir.Constant(F32, 0.0), ir.Constant(F32, 255.0)
    with for_range(b, plan.m, name="r") as r:
        with for_range(b, plan.k, name="c") as c:
            x = k.load(k.inp(0), b.add(b.mul(r, i64(plan.k)), c), DType.f32)
            q = b.fadd(b.call(rnd, [b.fmul(x, inv)]), zp)
            q = b.select(b.fcmp_ordered("<", q, lo), lo, q)
            q = b.select(b.fcmp_ordered(">", q, hi), hi, q)
            off = b.add(b.mul(r, i64(plan.lda)), c)
            b.store(b.trunc(b.fptosi(q, I32), I8), b.gep(dst, [off], source_etype=I8))


def prepare_dynamic(
    op: Operation,
    plan: QGemmPlan,
    ep: QEpilogue,
    w: torch.Tensor,
    bias,
    threads: int = 1,
) -> Prepared:
    ws = torch.tensor(op.attrs["w_scale"], dtype=torch.float32)
    extra = [
        pack_weight(w, plan),
        padded(column_sums(w), plan.np_, torch.int32),
        padded(ws, plan.np_, torch.float32),
    ]
    if bias is not None:
        extra.append(padded(bias, plan.np_, torch.float32))
    scratch = [plan.mp * plan.lda, plan.np_ * 4, plan.np_ * 4]

    def emit(k: Kernel) -> None:
        b = k.b
        scale, inv, zp = emit_qparams(k, k.inp(0), plan.m * plan.k)
        _quantize_rows(k, plan, inv, zp)
        zp_i = b.fptosi(zp, I32)
        corr, mult = k.scratch(1), k.scratch(2)
        with for_range(b, plan.np_, name="col") as j:
            k.store(b.mul(zp_i, k.load(k.extra(1), j, DType.i32)), corr, j, DType.i32)
            k.store(b.fmul(scale, k.load(k.extra(2), j, DType.f32)), mult, j, DType.f32)
        bias_ptr = k.extra(3) if bias is not None else ir.Constant(k.out().type, None)
        args = [k.out(), k.scratch(0), k.extra(0), corr, mult, bias_ptr]
        qgemm_call(k, plan, ep, args, threads)

    return Prepared(emit, extra=extra, scratch=scratch)
