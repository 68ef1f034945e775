"""Direct channels-last convolution: an implicit GEMM with no im2col buffer.

    void name(ptr out, ptr x, ptr w, ptr bias, ptr residual, ptr xpad, i64 first, i64 count)

computes work items [first, first + count) of ``plan.items`` (conv_plan.py): each item is
one image, one block of ``mc`` output positions and one panel of ``nr`` output channels.
For each register tile of ``mr`` positions x ``nr`` channels the accumulators stay in
registers over the whole reduction (kh x kw x C): per kernel row (``padded``: one run of
kw*C floats of the zero-bordered copy ``xpad``) or per tap (in place: one run of C
floats of ``x``, or of a zero row when the tap lies in the padding), each step loads
``nr/vw`` weight vectors and broadcasts ``mr`` input values into ``mr*nr/vw`` FMAs. Then
bias, residual ("pre"/"post") and the epilogue, and one store per vector (masked on the
channel edge). The two input forms, and how tiles meet output rows: conv_taps.py.

    x     [N, H, W, C] (NHWC)          out, residual  [N, OH, OW, O] (NHWC)
    w     pack_conv_weight: [ceil(O/nr), kh, kw, C, nr]      bias  [O]
    xpad  [N, H + 2ph, W + 2pw, C], written by ``emit_pad`` (``padded``; without padding,
          x itself: both are only read, so both stay ``noalias``)

The epilogue hook is gemm.py's ``Epilogue``: row = image * positions + position,
col = output channel.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import llvmlite.ir as ir

from .conv_plan import ConvPlan
from .conv_taps import BorderedTaps, InplaceTaps, emit_pad
from .gemm import Epilogue
from .lightsplit import mark
from .simd import F32, I64, PTR, SimdBuilder

__all__ = [
    "emit_conv",
    "declare_conv",
    "emit_conv_body",
    "emit_pad",
]  # emit_pad: conv_taps


@dataclass(frozen=True)
class _Opts:
    epilogue: Epilogue | None
    bias: bool
    residual: str | None
    optional: bool = False  # the residual may be null (then none is added)


@dataclass(frozen=True)
class _KRange:
    """The taps and channels of one k-block; `first`/`last`: True or an i1 value."""

    tap0: ir.Value  # first flat tap (ki * kw + kj)
    taps: int
    c0: ir.Value  # first channel
    chunk: int  # channels per tap
    first: object = True
    last: object = True


@dataclass(frozen=True)
class _Panel:
    j: ir.Value  # panel index (i64)
    nvec: int
    lanes: int  # valid lanes of the last vector


@dataclass(frozen=True)
class _Place:
    """Where a tile's outputs go: its first output row (image * positions + first
    position), the offset of (that row, the panel's first channel) in out, and the
    panel's first channel; tile row r, vector v is at base + r * O + v * vw."""

    row0: ir.Value
    base: ir.Value
    col0: ir.Value


def emit_conv(
    module: ir.Module,
    name: str,
    plan: ConvPlan,
    *,
    epilogue: Epilogue | None = None,
    bias: bool = False,
    residual: str | None = None,
    optional_residual: bool = False,
) -> ir.Function:
    """Emit the convolution of `plan` (layouts: module docstring); with
    `optional_residual` a null residual pointer adds none (one function serves a
    convolution with and one without)."""
    fn = declare_conv(module, name)
    emit_conv_body(
        fn,
        plan,
        epilogue=epilogue,
        bias=bias,
        residual=residual,
        optional_residual=optional_residual,
    )
    return fn


def declare_conv(module: ir.Module, name: str) -> ir.Function:
    """The conv function's declaration (``emit_conv_body`` fills it)."""
    fn = ir.Function(
        module, ir.FunctionType(ir.VoidType(), [PTR] * 6 + [I64] * 2), name
    )
    names = ("out", "x", "w", "bias", "residual", "xpad", "first", "count")
    for i, (arg, arg_name) in enumerate(zip(fn.args, names, strict=True)):
        arg.name = arg_name
        if i < 6:
            arg.add_attribute("noalias")
    fn.attributes.add("nounwind")
    return fn


def emit_conv_body(
    fn: ir.Function,
    plan: ConvPlan,
    *,
    epilogue: Epilogue | None = None,
    bias: bool = False,
    residual: str | None = None,
    optional_residual: bool = False,
) -> None:
    if residual not in (None, "pre", "post"):
        raise ValueError(f"residual={residual!r} (None|'pre'|'post')")
    opts = _Opts(epilogue, bias, residual, optional_residual and residual is not None)
    _ConvEmitter(fn.module, fn, plan, opts).emit()
    mark(fn)  # no IR passes over it (lightsplit.py)


class _ConvEmitter(InplaceTaps, BorderedTaps, SimdBuilder):
    def __init__(self, module: ir.Module, fn: ir.Function, plan: ConvPlan, opts: _Opts):
        super().__init__(module, fn, plan.vw)
        self.plan, self.opts, self.cs = plan, opts, plan.cs
        self.out, self.x, self.w, self.bias, self.res, self.xpad = fn.args[:6]
        self.first, self.count = fn.args[6:]
        self.zeros = None if plan.padded else self._zero_row(f"{fn.name}.zeros")
        self.res_masks: dict[int, ir.Value] = {}
        self.ahead = None  # the next panel's prefetch (prefetch_next)

    def residual_masks(self, pan: _Panel) -> None:
        """lanes -> the residual's load mask for this tile's stores: those lanes if the
        pointer is not null, none if it is. Made where the tile stores (live only
        there: made once in the entry block they held registers through the hot loop
        and cost ResNet-18 4.5%)."""
        b = self.b
        given = b.icmp_unsigned("!=", self.res, ir.Constant(PTR, None))
        none = ir.Constant(self.mask_type, None)
        self.res_masks = {
            n: b.select(given, self.mask(n), none) for n in {self.width, pan.lanes}
        }

    def residual(self, off, lanes: int) -> ir.Value:
        """The residual's vector at `off`; with an optional residual a masked load
        that reads nothing and gives -0.0 (x + -0.0 == x, bit for bit) if it is null."""
        if not self.opts.optional:
            return self.load_vec(self.res, off, lanes)
        vt = self.vec
        load = self.intrinsic(
            f"llvm.masked.load.v{self.width}f32.p0", vt, [PTR, self.mask_type, vt]
        )
        at = self.b.gep(self.res, [self.i64(off)], source_etype=F32)  # may be null
        neg_zero = ir.Constant(vt, [-0.0] * self.width)
        return self.call_aligned(load, [at, self.res_masks[lanes], neg_zero], 0)

    def _zero_row(self, name: str) -> ir.GlobalVariable:
        g = ir.GlobalVariable(self.module, ir.ArrayType(F32, self.cs.cg), name)
        g.linkage, g.global_constant, g.align = "internal", True, 64
        g.initializer = ir.Constant(g.value_type, None)
        return g

    # ---- work items -----------------------------------------------------------------
    def emit(self) -> None:
        self.dyn_loop(self.count, lambda i: self.item(self.b.add(self.first, i)))
        self.b.ret_void()

    def dyn_loop(self, count: ir.Value, body) -> None:
        """for (i = 0; i < count; i++) body(i), count a runtime i64."""
        b = self.b
        pre, head = b.block, b.append_basic_block("items")
        body_bb, end = b.append_basic_block("item"), b.append_basic_block("items.end")
        b.branch(head)
        b.position_at_end(head)
        iv = b.phi(I64, name="it")
        iv.add_incoming(self.i64(0), pre)
        b.cbranch(b.icmp_signed("<", iv, count), body_bb, end)
        b.position_at_end(body_bb)
        body(iv)
        nxt = b.add(iv, self.i64(1))
        iv.add_incoming(nxt, b.block)
        b.branch(head)
        b.position_at_end(end)

    def item(self, it: ir.Value) -> None:
        p, b = self.plan, self.b
        if p.order == "m":  # (image, block, panel): panels innermost
            j = b.urem(it, self.i64(p.panels))
            rest = b.udiv(it, self.i64(p.panels))
            mb, n = (
                b.urem(rest, self.i64(p.m_blocks)),
                b.udiv(rest, self.i64(p.m_blocks)),
            )
        else:  # (image, panel, block): blocks innermost
            mb = b.urem(it, self.i64(p.m_blocks))
            rest = b.udiv(it, self.i64(p.m_blocks))
            j, n = b.urem(rest, self.i64(p.panels)), b.udiv(rest, self.i64(p.panels))
        p0 = self.mul(mb, p.block)
        last_rows = p.positions - (p.m_blocks - 1) * p.block
        if last_rows == p.block:
            self.panel_split(n, p0, p.block, j)
            return
        is_last = b.icmp_unsigned("==", mb, self.i64(p.m_blocks - 1))
        with b.if_else(is_last) as (last, full):
            with last:
                self.panel_split(n, p0, last_rows, j)
            with full:
                self.panel_split(n, p0, p.block, j)

    def panel_split(self, n, p0, rows: int, j) -> None:
        p, b = self.plan, self.b
        rem = self.cs.og - (p.panels - 1) * p.nr
        vw = self.width
        full = _Panel(j, p.nr // vw, vw)
        if rem == p.nr:
            self.k_blocks(n, p0, rows, full)
            return
        nvec = math.ceil(rem / vw)
        edge = _Panel(j, nvec, rem - (nvec - 1) * vw)
        if p.panels == 1:
            self.k_blocks(n, p0, rows, edge)
            return
        is_last = b.icmp_unsigned("==", j, self.i64(p.panels - 1))
        with b.if_else(is_last) as (last, other):
            with last:
                self.k_blocks(n, p0, rows, edge)
            with other:
                self.k_blocks(n, p0, rows, full)

    def k_blocks(self, n, p0, rows: int, pan: _Panel) -> None:
        """All tiles of the block per k-block (partial sums in `out` between blocks)."""
        p, b = self.plan, self.b
        taps, chunk, count = p.k_split
        if count == 1:
            self.tiles(n, p0, rows, pan, _KRange(self.i64(0), taps, self.i64(0), chunk))
            return
        per_tap = self.cs.cg // chunk

        def block(kb, _):
            if per_tap == 1:
                kr = _KRange(self.mul(kb, taps), taps, self.i64(0), chunk)
            else:
                tap, part = b.udiv(kb, self.i64(per_tap)), b.urem(kb, self.i64(per_tap))
                kr = _KRange(tap, 1, self.mul(part, chunk), chunk)
            first = b.icmp_unsigned("==", kb, self.i64(0))
            last = b.icmp_unsigned("==", kb, self.i64(count - 1))
            self.tiles(
                n, p0, rows, pan, dataclasses.replace(kr, first=first, last=last)
            )
            return []

        self.loop(count, [], block)

    def tiles(self, n, p0, rows: int, pan: _Panel, kr: _KRange) -> None:
        if self.plan.padded:
            self.row_tiles(n, p0, rows, pan, kr)
            return
        mr = self.plan.mr
        full, rem = divmod(rows, mr)

        spread = self.plan.ahead and kr.last is True and self.plan.order == "m"
        tiles = full + (1 if rem else 0)

        def tile(t, _):
            self.ahead = (t, tiles) if spread else None
            self.tile(n, self.add(p0, self.mul(t, mr)), mr, pan, kr, self.plan.unroll)
            return []

        self.loop(full, [], tile)
        if rem:  # once per item: its k loop rolled (a quarter of the code, same speed)
            unroll = 1 if full else self.plan.unroll
            self.ahead = (self.i64(full), tiles) if spread else None
            self.tile(n, self.add(p0, full * mr), rem, pan, kr, unroll)
        self.ahead = None

    # ---- one register tile ----------------------------------------------------------
    def tile(self, n, pos0, rows: int, pan: _Panel, kr: _KRange, unroll: int) -> None:
        cs, b = self.cs, self.b
        ow_n = self.i64(cs.outs[1])
        cells = []
        for r in range(rows):
            pos = self.add(pos0, r)
            cells.append((b.udiv(pos, ow_n), b.urem(pos, ow_n)))
        place = self.place(n, pos0, pan)
        accs = self.initial(place, rows, pan, kr)
        b_panel = self.mul(pan.j, self.cs.k * self.plan.nr)
        if self.ahead is not None:  # (b_panel, this tile's share's start, tiles)
            t, tiles = self.ahead
            self.ahead = (b_panel, self.mul(t, self.cs.k * self.plan.nr), tiles)
        accs = self.inplace_taps(n, cells, b_panel, pan, accs, kr, unroll)
        self.finish(place, rows, pan, accs, kr)

    def place(self, n, pos0, pan: _Panel) -> _Place:
        row0 = self.add(self.mul(n, self.plan.positions), pos0)
        col0 = self.mul(pan.j, self.plan.nr)
        return _Place(row0, self.add(self.mul(row0, self.cs.og), col0), col0)

    def initial(self, place: _Place, rows: int, pan: _Panel, kr: _KRange) -> list:
        zero = ir.Constant(self.vec, None)
        if kr.first is True:
            return [zero] * (rows * pan.nvec)
        accs = []
        for r in range(rows):
            for v in range(pan.nvec):
                off = self.c_offset(place, r, v)
                partial = self.load_vec(self.out, off, self.lanes(pan, v))
                accs.append(self.b.select(kr.first, zero, partial))
        return accs

    def run(self, rows, length: int, b_off, pan: _Panel, accs, unroll: int) -> list:
        """accs += sum over t < length of A[r][t] * w[b_off + t*nr : +nr], where tile
        row r reads A[r][t] at rows[r] = (pointer, static offset) + t; the t loop
        unrolled `unroll` times."""
        u = min(unroll, length)
        iters, rem = divmod(length, u)

        def steps(t0, accs, count):
            for s in range(count):
                accs = self.k_step(rows, self.add(t0, s), b_off, pan, accs)
            return accs

        accs = self.loop(iters, accs, lambda i, a: steps(self.mul(i, u), a, u))
        return steps(self.i64(iters * u), accs, rem)

    def k_step(self, rows, t, b_off, pan: _Panel, accs) -> list:
        b, nr = self.b, self.plan.nr
        w_off = self.add(b_off, self.mul(t, nr))
        bvecs = [
            self.load_vec(self.w, self.add(w_off, self.width * v), self.width)
            for v in range(pan.nvec)
        ]
        if self.ahead is not None:
            self.prefetch_next(w_off)
        if self.plan.prefetch:
            self.prefetch(
                self.add(w_off, self.plan.prefetch // 4), pan.nvec * self.width
            )
        fma = self.fma()
        out = []
        for r, (ptr, off) in enumerate(rows):
            at = self.add(t, off) if off else t
            a = b.load(
                b.gep(ptr, [at], inbounds=True, source_etype=F32), typ=F32, align=4
            )
            a_vec = self.splat(a)
            for v in range(pan.nvec):
                out.append(b.call(fma, [a_vec, bvecs[v], accs[r * pan.nvec + v]]))
        return out

    def prefetch_next(self, w_off) -> None:
        """``plan.ahead``: tile t of the panel's T, at reduction step s, asks for the
        line (t*K + s) * nr / T' floats into the next panel (T' the largest power of
        two <= T: a shift; tiles past T' reach into the panel after). The next panel
        arrives in L2 over all of this panel's tiles, instead of in a burst from L3
        while its own first tile waits on it (ResNet-18's layer4 at batch 1)."""
        b_panel, share, tiles = self.ahead
        b = self.b
        step = self.add(share, b.sub(w_off, b_panel))  # (t*K + s) * nr
        shift = tiles.bit_length() - 1  # / the largest power of two <= T: a shift
        into = b.lshr(step, self.i64(shift)) if shift else step
        at = self.add(b_panel, self.cs.k * self.plan.nr, into)
        self.prefetch(at, self.width)

    def prefetch(self, offset, floats: int) -> None:
        """Ask for the weight lines at `offset` (floats) into L2 (one per 64 bytes)."""
        i32 = ir.IntType(32)
        pf = self.intrinsic("llvm.prefetch.p0", ir.VoidType(), [PTR, i32, i32, i32])
        for line in range(0, floats, 16):
            at = self.add(offset, line)  # may lie past the weights: no inbounds
            args = [
                self.b.gep(self.w, [at], source_etype=F32),
                *(ir.Constant(i32, v) for v in (0, 2, 1)),
            ]
            self.b.call(pf, args)

    # ---- epilogue and store -------------------------------------------------------------
    def c_offset(self, place: _Place, r: int, v: int) -> ir.Value:
        """Offset in out of vector v of tile row r."""
        return self.add(place.base, r * self.cs.og + self.width * v)

    def lanes(self, pan: _Panel, v: int) -> int:
        return pan.lanes if v == pan.nvec - 1 else self.width

    def finish(self, place: _Place, rows: int, pan: _Panel, accs, kr: _KRange) -> None:
        if kr.last is True:
            self.store_final(place, rows, pan, accs)
            return
        with self.b.if_else(kr.last) as (last, partial):
            with last:
                self.store_final(place, rows, pan, accs)
            with partial:
                for r in range(rows):
                    for v in range(pan.nvec):
                        off = self.c_offset(place, r, v)
                        vec = accs[r * pan.nvec + v]
                        self.store_vec(vec, self.out, off, self.lanes(pan, v))

    def store_final(self, place: _Place, rows: int, pan: _Panel, accs) -> None:
        """Bias, residual, epilogue, store; per-panel values (columns, bias vectors)
        made once per tile."""
        o, b = self.opts, self.b
        cols = [self.add(place.col0, self.width * v) for v in range(pan.nvec)]
        if o.optional:
            self.residual_masks(pan)
        if o.bias:
            biases = [
                self.load_vec(self.bias, cols[v], self.lanes(pan, v))
                for v in range(pan.nvec)
            ]
        for r in range(rows):
            row = self.add(place.row0, r) if o.epilogue is not None else None
            for v in range(pan.nvec):
                off, lanes = self.c_offset(place, r, v), self.lanes(pan, v)
                acc = accs[r * pan.nvec + v]
                if o.bias:
                    acc = b.fadd(acc, biases[v])
                if o.residual == "pre":
                    acc = b.fadd(acc, self.residual(off, lanes))
                if o.epilogue is not None:
                    acc = o.epilogue(b, acc, row, cols[v])
                if o.residual == "post":
                    acc = b.fadd(acc, self.residual(off, lanes))
                self.store_vec(acc, self.out, off, lanes)
