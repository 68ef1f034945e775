"""GEMM kernel generator: register-tiled AVX-512 float32 matmul emitted as LLVM IR.

Algorithm (BLIS-style, every size static, so each shape gets its own straight code):

    for each k-block  [k0, k0+kc)                 KC blocking: B block stays in L1
      for each column panel [j0, j0+nr)          NR = nvec zmm vectors wide
        (copy the kc x nr B block to a stack buffer when B is transposed)
        for each row tile [i0, i0+mr)            MR rows
          mr x nvec <16 x float> accumulators live in registers (loop phis);
          k loop (unrolled): load nvec B vectors, broadcast MR A scalars, FMA
          first k-block starts from 0, later ones reload C; the last one applies
          bias / residual / epilogue, then stores (masked on the n edge)

Edge tiles (m % mr rows, n % nr columns, short last k-block) are emitted as
separate straight-line variants with fewer accumulators and masked
loads/stores, so the hot loops carry no edge checks.

Operand layouts (all float32, contiguous):
    A          m x k row-major, or ``pack_a``: [ceil(m/mr), k, mr], zero padded
    B          ``pack_b``: [ceil(n/nr), k, nr], zero padded (weights), or
               k x n row-major (``b_packed=False``), or n x k row-major
               (``trans_b=True``, e.g. attention's q @ k^T)
    C          m x n row-major
    bias       n floats (``bias="n"``, linear layers) or m floats
               (``bias="m"``: NCHW conv as out[O, HW] = W[O, CKK] @ col[CKK, HW])
    residual   m x n row-major, must not alias C

Conv-as-GEMM: the weight is A (compile-time constant, ``pack_a``), the im2col
activation is B (``b_packed=False``); bias per output channel is ``bias="m"``.

Tiles and packed layouts: gemm_plan.py (``plan_gemm``, ``pack_a``, ``pack_b``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import llvmlite.ir as ir

from .gemm_plan import GemmPlan, pack_a, pack_b, plan_gemm
from .lightsplit import mark
from .simd import F32, I64, PTR, SimdBuilder

__all__ = [
    "Epilogue",
    "GemmPlan",
    "emit_gemm",
    "pack_a",
    "pack_b",
    "plan_gemm",
    "relu",
]


#: ``epilogue(builder, vec, row, col) -> vec``: ``vec`` is a <vw x float> of
#: C[row, col : col + vw] (lanes past n are garbage and never stored); ``row``
#: and ``col`` are i64 values.
Epilogue = Callable[[ir.IRBuilder, ir.Value, ir.Value, ir.Value], ir.Value]


def relu(builder: ir.IRBuilder, vec: ir.Value, row: ir.Value, col: ir.Value):
    """Epilogue: max(x, 0) (NaN -> 0, like the x86 maxps it becomes)."""
    zero = ir.Constant(vec.type, None)
    return builder.select(builder.fcmp_ordered(">", vec, zero), vec, zero)


def emit_gemm(
    module: ir.Module,
    name: str,
    plan: GemmPlan,
    *,
    epilogue: Epilogue | None = None,
    b_packed: bool = True,
    trans_b: bool = False,
    a_packed: bool = False,
    bias: str | None = None,
    residual: str | None = None,
) -> ir.Function:
    """Emit ``void name(C, A, B, bias_or_null, residual_or_null)`` (all ``float*``).

    C = A @ B, then per output vector: ``+ bias`` (``bias="n"``: bias[n] over
    rows; ``"m"``: bias[m] over columns), ``+ residual`` if ``residual="pre"``,
    ``epilogue(...)``, ``+ residual`` if ``residual="post"``. Layouts: module
    docstring. The 4th and 5th pointers are always present; pass null when
    unused. ``trans_b`` implies an unpacked B.
    """
    if bias not in (None, "n", "m") or residual not in (None, "pre", "post"):
        raise ValueError(f"bias={bias!r} (None|'n'|'m'), residual={residual!r}")
    if trans_b and b_packed:
        raise ValueError("trans_b=True describes a runtime B: pass b_packed=False")
    fn_type = ir.FunctionType(ir.VoidType(), [PTR] * 5)
    fn = ir.Function(module, fn_type, name)
    for arg, arg_name in zip(fn.args, ("C", "A", "B", "bias", "residual"), strict=True):
        arg.name = arg_name
        arg.add_attribute("noalias")
    fn.attributes.add("nounwind")
    opts = _Options(epilogue, b_packed, trans_b, a_packed, bias, residual)
    _Emitter(module, fn, plan, opts).emit()
    return mark(fn)  # no IR passes over it (lightsplit.py)


@dataclass(frozen=True)
class _Options:
    epilogue: Epilogue | None
    b_packed: bool
    trans_b: bool
    a_packed: bool
    bias: str | None
    residual: str | None


@dataclass(frozen=True)
class _Block:
    """One k-block: k0 is an i64 value, length static."""

    k0: ir.Value
    length: int
    first: bool
    last: bool


@dataclass(frozen=True)
class _Panel:
    """One column panel inside a k-block, and where its B vectors come from."""

    index: ir.Value  # panel number (i64)
    col0: ir.Value  # first column (i64)
    nvec: int  # vectors in this panel
    lanes: int  # valid lanes of the last vector
    b_ptr: ir.Value
    b_off: ir.Value  # offset of B[k0, col0] (i64, floats)
    b_stride: int  # floats between consecutive k rows
    b_masked: bool  # last vector needs a masked load


class _Emitter(SimdBuilder):
    def __init__(self, module: ir.Module, fn: ir.Function, plan: GemmPlan, opts):
        super().__init__(module, fn, plan.vector_width)
        self.plan, self.opts = plan, opts
        self.C, self.A, self.B, self.bias, self.res = fn.args
        kc = plan.k_blocks[1]
        self.lda_s = math.ceil(kc / 16) * 16 + 16  # +1 cache line: rows off 4K alias
        copy_a = plan.copy_a and not opts.a_packed
        copy_b = opts.trans_b or (plan.copy_b and not opts.b_packed)
        self.scratch_a = self.alloca(plan.mc * self.lda_s, "apack") if copy_a else None
        self.scratch_b = self.alloca(kc * plan.nr, "bpack") if copy_b else None

    # ---- the loop nest ------------------------------------------------------

    def emit(self) -> None:
        count, length, last = self.plan.k_blocks
        if count == 1:
            self.k_block(_Block(self.i64(0), length, True, True))
        else:
            self.k_block(_Block(self.i64(0), length, True, False))

            def middle(p, _):
                k0 = self.mul(self.add(p, 1), length)
                self.k_block(_Block(k0, length, False, False))
                return []

            self.loop(count - 2, [], middle)
            self.k_block(_Block(self.i64((count - 1) * length), last, False, True))
        self.b.ret_void()

    def k_block(self, blk: _Block) -> None:
        p = self.plan
        full, rem = divmod(p.m, p.mc)

        def m_block(i, _):
            self.m_block(blk, self.mul(i, p.mc), p.mc)
            return []

        self.loop(full, [], m_block)
        if rem:
            self.m_block(blk, self.i64(full * p.mc), rem)

    def m_block(self, blk: _Block, mrow0, rows: int) -> None:
        p, vw = self.plan, self.plan.vector_width
        if self.scratch_a is not None:
            self.copy_a(blk, mrow0, rows)
        full, rem = divmod(p.n, p.nr)

        def panel(j, _):
            self.panel(blk, mrow0, rows, j, p.nvec, vw)
            return []

        self.loop(full, [], panel)
        if rem:
            nvec = math.ceil(rem / vw)
            self.panel(blk, mrow0, rows, self.i64(full), nvec, rem - (nvec - 1) * vw)

    def copy_a(self, blk: _Block, mrow0, rows: int) -> None:
        """scratch_a[r, kk] = A[mrow0 + r, k0 + kk], rows lda_s apart (no 4K alias)."""
        p, vw = self.plan, self.plan.vector_width
        nv = math.ceil(blk.length / vw)
        tail = blk.length - (nv - 1) * vw

        def row(r, _):
            src = self.add(self.mul(self.add(mrow0, r), p.k), blk.k0)
            dst = self.mul(r, self.lda_s)
            for q in range(nv):
                v = self.load_vec(
                    self.A, self.add(src, q * vw), tail if q == nv - 1 else vw
                )
                self.store_vec(v, self.scratch_a, self.add(dst, q * vw), vw, 64)
            return []

        self.loop(rows, [], row)

    def panel(self, blk: _Block, mrow0, rows: int, j, nvec: int, lanes: int) -> None:
        p, o = self.plan, self.opts
        col0 = self.mul(j, p.nr)
        if o.b_packed:
            off = self.add(self.mul(j, p.k * p.nr), self.mul(blk.k0, p.nr))
            pan = _Panel(j, col0, nvec, lanes, self.B, off, p.nr, False)
        elif self.scratch_b is not None:
            self.copy_b(blk, col0, nvec, lanes)
            pan = _Panel(j, col0, nvec, lanes, self.scratch_b, self.i64(0), p.nr, False)
        else:
            off = self.add(self.mul(blk.k0, p.n), col0)
            pan = _Panel(j, col0, nvec, lanes, self.B, off, p.n, lanes < p.vector_width)
        full, rem = divmod(rows, p.mr)

        def tile(t, _):
            self.tile(blk, pan, mrow0, t, p.mr)
            return []

        self.loop(full, [], tile)
        if rem:
            self.tile(blk, pan, mrow0, self.i64(full), rem)

    def copy_b(self, blk: _Block, col0, nvec: int, lanes: int) -> None:
        """scratch_b[kk, jj] = B[k0 + kk, col0 + jj] (zero past n); gathers if trans_b."""
        p, vw = self.plan, self.plan.vector_width

        def row(kk, _):
            for v in range(nvec):
                n_lanes = lanes if v == nvec - 1 else vw
                if self.opts.trans_b:
                    vec = self.gather_b_column(blk, col0, kk, v, n_lanes)
                else:
                    src = self.add(self.mul(self.add(blk.k0, kk), p.n), col0, v * vw)
                    vec = self.load_vec(self.B, src, n_lanes)
                dst = self.add(self.mul(kk, p.nr), v * vw)
                self.store_vec(vec, self.scratch_b, dst, vw, 64)
            return []

        self.loop(blk.length, [], row)

    def gather_b_column(self, blk: _Block, col0, kk, v: int, lanes: int):
        """<B[col0 + 16v + t, k0 + kk] for t in 0..15> from the n x k matrix B."""
        p, vw, b = self.plan, self.plan.vector_width, self.b
        pvec = ir.VectorType(PTR, vw)
        gather = self.intrinsic(
            "llvm.masked.gather.v16f32.v16p0",
            self.vec,
            [pvec, self.mask_type, self.vec],
        )
        first = self.add(self.mul(self.add(col0, v * vw), p.k), blk.k0, kk)
        base = b.ptrtoint(self.gep(self.B, first), I64)
        steps = ir.Constant(ir.VectorType(I64, vw), [4 * p.k * t for t in range(vw)])
        addrs = b.inttoptr(b.add(self.splat_i64(base), steps), pvec)
        args = [addrs, self.mask(lanes), ir.Constant(self.vec, None)]
        return self.call_aligned(gather, args, 0)

    def a_view(self, blk: _Block, mrow0, row0, rows: int) -> tuple[list, int]:
        """Offsets of A[row0 + r, k0] for each row r, and the step per k."""
        p = self.plan
        if self.opts.a_packed:  # [tile, k, mr]: tile * k * mr == row0 * k
            base = self.add(self.mul(row0, p.k), self.mul(blk.k0, p.mr))
            return [self.add(base, r) for r in range(rows)], p.mr
        if self.scratch_a is not None:
            base = self.b.sub(row0, mrow0) if not isinstance(mrow0, int) else row0
            base = self.mul(base, self.lda_s)
            return [self.add(base, r * self.lda_s) for r in range(rows)], 1
        base = self.add(self.mul(row0, p.k), blk.k0)
        return [self.add(base, r * p.k) for r in range(rows)], 1

    def tile(self, blk: _Block, pan: _Panel, mrow0, t, rows: int) -> None:
        p = self.plan
        row0 = self.add(mrow0, self.mul(t, p.mr))
        a_row, a_stride = self.a_view(blk, mrow0, row0, rows)
        accs = self.initial(blk, pan, row0, rows)
        unroll = min(p.unroll, blk.length)
        iters, rem = divmod(blk.length, unroll)

        def steps(kbase, accs, count):
            for u in range(count):
                accs = self.k_step(pan, a_row, a_stride, self.add(kbase, u), accs)
            return accs

        accs = self.loop(
            iters, accs, lambda i, a: steps(self.mul(i, unroll), a, unroll)
        )
        accs = steps(self.i64(iters * unroll), accs, rem)
        self.finish(blk, pan, row0, rows, accs)

    def k_step(self, pan: _Panel, a_row, a_stride: int, kk, accs) -> list:
        vw = self.plan.vector_width
        b_off = self.add(pan.b_off, self.mul(kk, pan.b_stride))
        bvecs = []
        for v in range(pan.nvec):
            lanes = pan.lanes if (pan.b_masked and v == pan.nvec - 1) else vw
            bvecs.append(self.load_vec(pan.b_ptr, self.add(b_off, v * vw), lanes))
        if self.plan.prefetch and self.opts.b_packed:
            self.prefetch(
                pan.b_ptr, self.add(b_off, self.plan.prefetch // 4), pan.nvec * vw
            )
        out = []
        fma = self.fma()
        a_k = self.mul(kk, a_stride)
        for r, off in enumerate(a_row):
            a_ptr = self.A if self.scratch_a is None else self.scratch_a
            a = self.b.load(self.gep(a_ptr, self.b.add(off, a_k)), typ=F32, align=4)
            a_vec = self.splat(a)
            for v in range(pan.nvec):
                out.append(self.b.call(fma, [a_vec, bvecs[v], accs[r * pan.nvec + v]]))
        return out

    def prefetch(self, ptr, offset, floats: int) -> None:
        """Ask for the lines at `offset` (floats from `ptr`) into L2, one per 64 bytes
        (the next column panel's rows: a first tile need not wait for L3)."""
        i32 = ir.IntType(32)
        pf = self.intrinsic("llvm.prefetch.p0", ir.VoidType(), [PTR, i32, i32, i32])
        for line in range(0, floats, 16):
            flags = (ir.Constant(i32, v) for v in (0, 2, 1))
            self.b.call(pf, [self.gep(ptr, self.add(offset, line)), *flags])

    def c_offset(self, pan: _Panel, row0, r: int, v: int) -> ir.Value:
        p = self.plan
        return self.add(self.mul(row0, p.n), pan.col0, r * p.n + v * p.vector_width)

    def lanes(self, pan: _Panel, v: int) -> int:
        return pan.lanes if v == pan.nvec - 1 else self.plan.vector_width

    def initial(self, blk: _Block, pan: _Panel, row0, rows: int) -> list:
        if blk.first:
            return [ir.Constant(self.vec, None)] * (rows * pan.nvec)
        return [
            self.load_vec(self.C, self.c_offset(pan, row0, r, v), self.lanes(pan, v))
            for r in range(rows)
            for v in range(pan.nvec)
        ]

    def finish(self, blk: _Block, pan: _Panel, row0, rows: int, accs) -> None:
        for r in range(rows):
            for v in range(pan.nvec):
                acc, lanes = accs[r * pan.nvec + v], self.lanes(pan, v)
                off = self.c_offset(pan, row0, r, v)
                if blk.last:
                    acc = self.apply_epilogue(acc, pan, row0, r, v, off, lanes)
                self.store_vec(acc, self.C, off, lanes)

    def apply_epilogue(self, acc, pan: _Panel, row0, r: int, v: int, off, lanes):
        o, vw, b = self.opts, self.plan.vector_width, self.b
        row = self.add(row0, r)
        col = self.add(pan.col0, v * vw)
        if o.bias == "n":
            acc = b.fadd(acc, self.load_vec(self.bias, col, lanes))
        elif o.bias == "m":
            acc = b.fadd(acc, self.splat(b.load(self.gep(self.bias, row), typ=F32)))
        if o.residual == "pre":
            acc = b.fadd(acc, self.load_vec(self.res, off, lanes))
        if o.epilogue is not None:
            acc = o.epilogue(b, acc, row, col)
        if o.residual == "post":
            acc = b.fadd(acc, self.load_vec(self.res, off, lanes))
        return acc
