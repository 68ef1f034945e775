"""The int8 GEMM: C = epilogue(A[m, k] (u8) @ B[k, n] (s8)) with int32 accumulators.

A is row-major uint8 (activations: a linear's input, a convolution's im2col rows) with
``lda`` bytes between rows, zero from k up to ``kp``; B is the int8 weight, packed at
compile time (``pack_weight``) as ``[n/16][kp/4][16][4]``: 16 columns x 4 consecutive k
per 64 bytes, which is the operand layout of both ``vpdpbusd`` (one zmm) and the AMX
``tdpbusd`` B tile (16 such rows). The epilogue (qsimd.QEpilogue) turns each int32
vector into the op's result.

Micro-kernels, by instruction set (cpu.py):

- ``avx512``: mr x (nv*16) int32 accumulators in zmm registers; per 4 k: nv B vectors
  and mr broadcasts of 4 A bytes, mr*nv ``vpdpbusd`` (``llvm.x86.avx512.vpdpbusd.512``);
- ``portable``: the same loop nest in plain LLVM IR (zext x sext, multiply, add groups
  of 4 lanes), which LLVM lowers for any x86 (or other) target;
- ``amx``: amx.py (2 x 2 tiles of 16 x 16 int32).

The integer part is exact (|acc| < 2**31 for k <= 65536), so every instruction set
gives the same bits; the float epilogue is the op's own arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import llvmlite.ir as ir
import torch

from .loops import for_range
from .parallel import BLOCKS_PER_THREAD, PARALLEL_MIN_FLOPS, block_loop, parallel_for
from .qsimd import (
    I8,
    I16,
    I32,
    I64,
    PTR,
    V16F32,
    V16I32,
    V64I8,
    QEpilogue,
    Vec,
    counted_loop,
)

__all__ = [
    "QGemmPlan",
    "plan_qgemm",
    "pack_weight",
    "padded",
    "emit_qgemm",
    "qgemm_fn",
    "column_sums",
    "qgemm_call",
    "split_qrows",
]


def _round_up(x: int, to: int) -> int:
    return -(-x // to) * to


@dataclass(frozen=True)
class QGemmPlan:
    """One int8 GEMM shape and how it is tiled. ``np_``: n padded (B, the per-column
    arrays); ``mp``: rows the A buffer must hold (amx reads whole 16-row tiles)."""

    m: int
    n: int
    k: int
    isa: str
    kp: int
    lda: int
    mr: int
    nv: int
    dtype: str = (
        "int8"  # int8 (u8 x s8 -> i32) | bf16 (bf16 x bf16 -> f32, bf16gemm.py)
    )

    @property
    def group(self) -> int:
        """k per 4 bytes: the unit of one dot-product instruction lane."""
        return 4 if self.dtype == "int8" else 2

    @property
    def np_(self) -> int:
        return _round_up(self.n, 16 * (self.nv if self.isa == "amx" else 1))

    @property
    def mp(self) -> int:
        return _round_up(self.m, self.mr) if self.isa == "amx" else self.m


def plan_qgemm(
    m: int, n: int, k: int, isa: str, lda: int | None = None, dtype: str = "int8"
) -> QGemmPlan:
    """The tile for a shape: amx 32 x 32 (2 x 2 tiles); avx512/portable mr rows of nv
    zmm: up to 24 accumulators (6 x 64 for wide n, 12 x 32 / 14 x 16 for narrow n, one
    row of up to 8 vectors for m = 1). `lda`: bytes between A rows (default kp's)."""
    group = 4 if dtype == "int8" else 2
    kp = _round_up(max(k, 1), 64 // (4 // group) if isa == "amx" else group)
    lda = kp * (4 // group) if lda is None else lda
    if isa == "amx":
        return QGemmPlan(m, n, k, isa, kp, lda, 32, 2, dtype)
    vectors = -(-n // 16)
    if m == 1:
        mr, nv = 1, min(vectors, 8)
    elif vectors >= 4:
        mr, nv = 6, 4
    elif vectors >= 2:
        mr, nv = 12, 2
    else:
        mr, nv = 14, 1
    return QGemmPlan(m, n, k, isa, kp, lda, min(mr, m), nv, dtype)


def pack_weight(w: torch.Tensor, plan: QGemmPlan) -> torch.Tensor:
    """w[n, k] (output channels x K) in the ``[np/16][kp/g][16][g]`` layout, g = 4 int8
    or 2 bfloat16 (given as torch.bfloat16) values of consecutive k."""
    g = plan.group
    wp = torch.zeros(plan.np_, plan.kp, dtype=w.dtype)
    wp[: plan.n, : plan.k] = w.reshape(plan.n, plan.k)
    panels = wp.reshape(plan.np_ // 16, 16, plan.kp // g, g).permute(0, 2, 1, 3)
    return panels.contiguous().reshape(-1)


def column_sums(w: torch.Tensor) -> torch.Tensor:
    """Per output channel sum of w[n, ...] (int32): the zero-point correction's factor."""
    return w.reshape(w.shape[0], -1).to(torch.int32).sum(1, dtype=torch.int32)


def padded(values: torch.Tensor, length: int, dtype: torch.dtype) -> torch.Tensor:
    out = torch.zeros(length, dtype=dtype)
    out[: values.numel()] = values.reshape(-1).to(dtype)
    return out


# ---- the function ------------------------------------------------------------------------
def qgemm_fn(module: ir.Module, plan: QGemmPlan, ep: QEpilogue) -> ir.Function:
    """``void f(ptr C, ptr A, ptr B, ptr corr, ptr mult, ptr bias)``, one per (plan,
    epilogue) in a module: equal shapes share it."""
    cache = module.__dict__.setdefault("_cuvil_qgemms", {})
    key = (plan, ep)
    if key not in cache:
        kind = "qgemm" if plan.dtype == "int8" else "bgemm"
        name = f"cuvil_{kind}{len(cache)}_{plan.isa}_{plan.m}x{plan.n}x{plan.k}"
        if plan.isa == "amx":
            from .amx import emit_amx_gemm

            cache[key] = emit_amx_gemm(module, name, plan, ep)
        else:
            cache[key] = emit_qgemm(module, name, plan, ep)
    return cache[key]


def split_qrows(plan: QGemmPlan, threads: int) -> int:
    """Rows per block of a GEMM split over `threads` (a multiple of the tile height, so
    an AMX block's 32-row tiles stay inside the A buffer); ``plan.m``: no split."""
    flops = 2 * plan.m * plan.n * plan.k
    if threads <= 1 or flops < PARALLEL_MIN_FLOPS:
        return plan.m
    per = -(-plan.m // (threads * BLOCKS_PER_THREAD))
    return min(_round_up(per, plan.mr), plan.m)


def qgemm_call(k, plan: QGemmPlan, ep: QEpilogue, args: list, threads: int) -> None:
    """``qgemm_fn(plan, ep)(*args)`` (C, A, B, corr, mult, bias), its rows split into
    blocks over the thread pool (parallel.py) when there are enough of them: block i
    is the GEMM of rows [i*per, (i+1)*per) on C and A advanced by those rows. Each
    block computes exactly what the whole would (integer sums, per-row epilogue)."""
    module = k.b.module
    per = split_qrows(plan, threads)
    if per >= plan.m:
        k.b.call(qgemm_fn(module, plan, ep), args)
        return
    blocks = -(-plan.m // per)
    full = qgemm_fn(module, replace(plan, m=per), ep)
    last_rows = plan.m - (blocks - 1) * per
    last = (
        full if last_rows == per else qgemm_fn(module, replace(plan, m=last_rows), ep)
    )
    c_row, a_row = ep.row_stride * ep.out_bytes, plan.lda

    def block_args(b: ir.IRBuilder, i, c, a, bp, *params) -> list:
        r0 = b.mul(i, ir.Constant(I64, per))
        at = [
            b.gep(p, [b.mul(r0, ir.Constant(I64, s))], source_etype=I8)
            for p, s in ((c, c_row), (a, a_row))
        ]
        return [*at, bp, *params]

    name = f"{full.name}_rows{plan.m}"
    rows = block_loop(module, name, blocks, full, last, block_args, pointers=6)
    parallel_for(k, rows, args, blocks, threads, 2 * plan.m * plan.n * plan.k)


def new_function(module: ir.Module, name: str, n_args: int) -> ir.Function:
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR] * n_args), name)
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    for arg in fn.args:
        arg.add_attribute("noalias")
    return fn


def emit_qgemm(
    module: ir.Module, name: str, plan: QGemmPlan, ep: QEpilogue
) -> ir.Function:
    """The avx512 / portable GEMM (module docstring): column tiles of nv vectors, row
    tiles of mr rows, the remainders as straight-line variants."""
    fn = new_function(module, name, 6)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    kern = _Micro(Vec(b), plan, ep, fn.args)
    vectors = plan.np_ // 16
    last = plan.n - (vectors - 1) * 16  # lanes of the last vector
    uniform = vectors // plan.nv
    rest = vectors % plan.nv
    if last < 16 and rest == 0:  # the masked vector ends a full tile: peel that tile
        uniform, rest = uniform - 1, plan.nv
    if uniform:
        with for_range(b, uniform, name="jt") as jt:
            kern.rows(kern.v.mul(jt, plan.nv), plan.nv, 16)
    if rest:
        kern.rows(uniform * plan.nv, rest, last)
    b.ret_void()
    return fn


class _Micro:
    """The register-tiled loop nest of emit_qgemm."""

    def __init__(self, v: Vec, plan: QGemmPlan, ep: QEpilogue, args) -> None:
        self.v, self.plan, self.ep = v, plan, ep
        v.out_ptr = args[0]
        self.a, self.bp = args[1], args[2]
        self.params = tuple(args[3:6])

    def rows(self, col_vec0, nv: int, lanes: int) -> None:
        plan, b = self.plan, self.v.b
        full, rem = divmod(plan.m, plan.mr)
        if full:
            with for_range(b, full, name="it") as it:
                self.tile(self.v.mul(it, plan.mr), plan.mr, col_vec0, nv, lanes)
        if rem:
            self.tile(full * plan.mr, rem, col_vec0, nv, lanes)

    def tile(self, row0, mr: int, cv0, nv: int, lanes: int) -> None:
        v, plan = self.v, self.plan
        steps = plan.kp // plan.group

        def body(kk, accs):
            bvec = [
                v.load(
                    V16I32, self.bp, v.mul(v.add(v.mul(v.add(cv0, j), steps), kk), 64)
                )
                for j in range(nv)
            ]
            out = list(accs)
            for i in range(mr):
                row = v.mul(v.add(row0, i), plan.lda)
                a4 = v.load(I32, self.a, v.add(row, v.mul(kk, 4)))
                a16 = v.splat(a4)
                for j in range(nv):
                    out[i * nv + j] = self.dot(out[i * nv + j], a16, bvec[j])
            return out

        zero = ir.Constant(V16I32 if plan.dtype == "int8" else V16F32, [0] * 16)
        accs = counted_loop(v.b, steps, [zero] * (mr * nv), body)
        mask = v.lane_mask(lanes)
        for i in range(mr):
            for j in range(nv):
                full = j < nv - 1 or lanes == 16
                v.epilogue(
                    self.ep,
                    accs[i * nv + j],
                    self.params,
                    v.add(row0, i),
                    v.mul(v.add(cv0, j), 16),
                    mask,
                    full,
                )

    def dot(self, acc, a16, b16) -> ir.Value:
        """acc[l] += sum_t u8(a[4l + t]) * s8(b[4l + t]) (bf16: bf16gemm.dot)."""
        v = self.v
        if self.plan.dtype == "bf16":
            from .bf16gemm import dot_bf16

            return dot_bf16(v, self.plan.isa, acc, a16, b16)
        if self.plan.isa == "avx512":
            return v.call("llvm.x86.avx512.vpdpbusd.512", V16I32, [acc, a16, b16])
        b = v.b
        # u8 x s8 fits int16 (|p| <= 32640): widen to i16, then multiply-add pairs into
        # i32 (the pmaddwd pattern LLVM knows), then add pairs of those
        a = b.zext(b.bitcast(a16, V64I8), ir.VectorType(I16, 64))
        w = b.sext(b.bitcast(b16, V64I8), ir.VectorType(I16, 64))
        pairs = _pairs(b, _pairs(b, a, w, 64), None, 32)
        return b.add(acc, pairs)


def _pick(b, x, lanes: int, first: int):
    idx = ir.Constant(ir.VectorType(I32, lanes // 2), list(range(first, lanes, 2)))
    return b.shuffle_vector(x, ir.Constant(x.type, None), idx)


def _pairs(b, x, y, lanes: int):
    """out[l] = x[2l]*y[2l] + x[2l+1]*y[2l+1] in i32 (y None: x[2l] + x[2l+1])."""
    wide = ir.VectorType(I32, lanes // 2)
    if y is None:
        return b.add(_pick(b, x, lanes, 0), _pick(b, x, lanes, 1))
    ev = b.mul(b.sext(_pick(b, x, lanes, 0), wide), b.sext(_pick(b, y, lanes, 0), wide))
    od = b.mul(b.sext(_pick(b, x, lanes, 1), wide), b.sext(_pick(b, y, lanes, 1), wide))
    return b.add(ev, od)
