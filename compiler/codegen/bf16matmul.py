"""``cuvil.matmul_bf16``: a batched matmul of two run-time float32 operands in bfloat16.

Per (broadcast) batch: A's rows are rounded to bf16 into the GEMM's row buffer
(qops.pack_rows) and B into the packed ``[n/16][kp/2][16][2]`` panel layout
(``_pack_b``), then the bf16 GEMM of qgemm.py / amx.py (float32 accumulators) writes
C. The attention products of a transformer (q @ k^T, p @ v) in bf16 mode are these.
"""

from __future__ import annotations

from ..ir.core import Module, Operation
from ..ir.types import DType
from .bf16gemm import to_bf16
from .kernel import Kernel, Prepared, contiguous_strides
from .loops import for_range, i64, linear_offset, loop_nest
from .pointwise import broadcast_access
from .qgemm import QGemmPlan, plan_qgemm, qgemm_call
from .qops import NULL, isa_for, memset, pack_rows
from .qsimd import I8, QEpilogue

__all__ = ["prepare_matmul_bf16"]


def _pack_b(k: Kernel, src, plan: QGemmPlan, dst) -> None:
    """dst[j / 16][kk / 2][j % 16][kk % 2] = bf16(src[kk, j]), zero padded."""
    b = k.b
    memset(k, dst, plan.np_ * plan.kp * 2)
    pairs = plan.kp // 2
    with for_range(b, plan.k, name="kk") as kk, for_range(b, plan.n, name="j") as j:
        x = k.load(src, b.add(b.mul(kk, i64(plan.n)), j), DType.f32)
        panel = b.lshr(j, i64(4))
        lane = b.and_(j, i64(15))
        row = b.add(b.mul(panel, i64(pairs)), b.lshr(kk, i64(1)))
        elem = b.add(
            b.mul(b.add(b.mul(row, i64(16)), lane), i64(2)), b.and_(kk, i64(1))
        )
        addr = b.gep(dst, [b.mul(elem, i64(2))], source_etype=I8)
        b.store(to_bf16(b, x), addr)


def prepare_matmul_bf16(
    op: Operation, param_data, module: Module | None, threads: int = 1
) -> Prepared:
    ta, tb = op.operand_types
    to = op.result.type
    m, kdim, n = ta.shape[-2], ta.shape[-1], tb.shape[-1]
    plan = plan_qgemm(m, n, kdim, isa_for(module, "bf16"), dtype="bf16")
    batch = list(to.shape[:-2])
    sa = broadcast_access(list(ta.shape[:-2]), batch).strides
    sb = broadcast_access(list(tb.shape[:-2]), batch).strides
    ep = QEpilogue(out="f32", corr=False, mult=False, row_stride=n)
    scratch = [plan.mp * plan.lda, plan.np_ * plan.kp * 2]

    def emit(k: Kernel) -> None:
        b = k.b
        with loop_nest(b, batch, name="bt") as idx:
            a_off = b.mul(linear_offset(b, idx, sa), i64(m * kdim * 4))
            b_off = b.mul(linear_offset(b, idx, sb), i64(kdim * n * 4))
            c_off = b.mul(
                linear_offset(b, idx, contiguous_strides(batch)), i64(m * n * 4)
            )
            a_ptr = b.gep(k.inp(0), [a_off], source_etype=I8)
            pack_rows(k, a_ptr, m, kdim, k.scratch(0), plan, to_bf16)
            _pack_b(k, b.gep(k.inp(1), [b_off], source_etype=I8), plan, k.scratch(1))
            out = b.gep(k.out(), [c_off], source_etype=I8)
            args = [out, k.scratch(0), k.scratch(1), NULL, NULL, NULL]
            qgemm_call(k, plan, ep, args, threads)

    return Prepared(emit, scratch=scratch)
