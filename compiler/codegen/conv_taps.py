"""Where a register tile of the direct convolution (conv.py) reads its input.

Two forms (``ConvPlan.padded``):

- in place (``InplaceTaps.inplace_taps``): tiles run over consecutive output positions,
  across output rows; per tap (ki, kj) each tile row gets its own pointer to a run of C
  floats of x, or to a zero row when the tap lies in the padding (a select per row and
  tap, no bounds checks in the inner loop). Good for short tiles (each row holds a
  general-purpose register).
- bordered (``BorderedTaps.row_tiles``): the input is first copied into the middle of a
  zeroed image (``emit_pad``); tiles stay inside one output row, or span whole rows,
  so every tile row is one base pointer plus a constant: kernel row ki is one run of
  kw*C floats at ``base + ki*dh*Wp*C + offset[r]``. One register for the whole tile,
  so tall tiles (14 rows) do not spill their pointers; and small C (the stem, C=3) gets
  runs of 21 floats instead of 3.
"""

from __future__ import annotations

import llvmlite.ir as ir

from .conv_plan import ConvPlan
from .simd import I64, PTR, SimdBuilder

__all__ = ["InplaceTaps", "BorderedTaps", "emit_pad"]


class InplaceTaps:
    """Mixin of conv.py's emitter: the in-place form."""

    def inplace_taps(self, n, cells, b_panel, pan, accs, kr, unroll: int) -> list:
        """One run of `kr.chunk` channels per tap, read from x; taps in the padding
        read the zero row instead. Per tile row its first input cell (ih0, iw0) and its
        offset; per tap one step (ki*dh, kj*dw) and its offset, shared by the rows."""
        cs, p, b = self.cs, self.plan, self.b
        (h, w), c, kw = cs.ins, cs.cg, cs.kernel[1]
        (sh, sw), (ph, pw), (dh, dw) = cs.stride, cs.padding, cs.dilation
        img = self.add(self.mul(n, h * w * c), kr.c0)
        starts = []
        for oh, ow in cells:
            ih0 = b.sub(self.mul(oh, sh), self.i64(ph))
            iw0 = b.sub(self.mul(ow, sw), self.i64(pw))
            starts.append(
                (ih0, iw0, self.add(img, self.mul(self.add(self.mul(ih0, w), iw0), c)))
            )

        def tap(t, accs):
            flat = self.add(kr.tap0, t)
            ki, kj = b.udiv(flat, self.i64(kw)), b.urem(flat, self.i64(kw))
            di, dj = self.mul(ki, dh), self.mul(kj, dw)
            step = self.mul(self.add(self.mul(di, w), dj), c)
            zero_row = self.gep(self.zeros, kr.c0)
            rows = []
            for ih0, iw0, base in starts:
                ok = b.and_(
                    b.icmp_unsigned("<", self.add(ih0, di), self.i64(h)),
                    b.icmp_unsigned("<", self.add(iw0, dj), self.i64(w)),
                )
                ptr = b.select(ok, self.gep(self.x, self.add(base, step)), zero_row)
                rows.append((ptr, 0))
            b_off = self.add(
                b_panel, self.mul(self.add(self.mul(flat, c), kr.c0), p.nr)
            )
            return self.run(rows, kr.chunk, b_off, pan, accs, unroll)

        return self.loop(kr.taps, accs, tap)


class BorderedTaps:
    """Mixin of conv.py's emitter: the bordered form, tiles aligned to output rows."""

    def row_tiles(self, n, p0, rows: int, pan, kr) -> None:
        """Tiles of the block of output rows starting at position p0 (a whole row)."""
        p, ow = self.plan, self.cs.outs[1]
        oh0 = self.b.udiv(p0, self.i64(ow)) if not isinstance(p0, int) else p0 // ow
        out_rows = rows // ow
        spread = p.ahead and kr.last is True and p.order == "m"
        if p.mr <= ow:  # tiles inside one output row, the row's edge tile last
            full, edge = divmod(ow, p.mr)
            per_row = full + (1 if edge else 0)

            def out_row(r, _):
                oh = self.add(oh0, r)

                def one(t, _):
                    at = self.add(self.mul(r, per_row), t)
                    self.ahead = (at, out_rows * per_row) if spread else None
                    self.tile_at(n, oh, self.mul(t, p.mr), p.mr, pan, kr)
                    return []

                self.loop(full, [], one)
                if edge:
                    at = self.add(self.mul(r, per_row), full)
                    self.ahead = (at, out_rows * per_row) if spread else None
                    self.tile_at(n, oh, self.i64(full * p.mr), edge, pan, kr)
                return []

            self.loop(out_rows, [], out_row)
            self.ahead = None
            return
        q = p.mr // ow  # tiles of q whole output rows
        full, edge = divmod(out_rows, q)
        tiles = full + (1 if edge else 0)

        def whole(t, _):
            self.ahead = (t, tiles) if spread else None
            self.tile_at(n, self.add(oh0, self.mul(t, q)), self.i64(0), q * ow, pan, kr)
            return []

        self.loop(full, [], whole)
        if edge:
            self.ahead = (self.i64(full), tiles) if spread else None
            self.tile_at(n, self.add(oh0, full * q), self.i64(0), edge * ow, pan, kr)
        self.ahead = None

    def tile_at(self, n, oh, ow0, rows: int, pan, kr) -> None:
        """The tile of `rows` positions from (oh, ow0): one base pointer per kernel row,
        each tile row a constant offset from it."""
        cs, p = self.cs, self.plan
        hp, wp = p.padded_dims
        c, ow, (sh, sw), dh = cs.cg, cs.outs[1], cs.stride, cs.dilation[0]
        offsets = [((r // ow) * sh * wp + (r % ow) * sw) * c for r in range(rows)]
        base = self.add(
            self.mul(n, hp * wp * c),
            self.mul(self.add(self.mul(oh, sh * wp), self.mul(ow0, sw)), c),
        )
        pos0 = self.add(self.mul(oh, ow), ow0)
        place = self.place(n, pos0, pan)
        accs = self.initial(place, rows, pan, kr)
        b_panel = self.mul(pan.j, cs.k * p.nr)
        if self.ahead is not None:  # (b_panel, this tile's share's start, tiles)
            t, tiles = self.ahead
            self.ahead = (b_panel, self.mul(t, cs.k * p.nr), tiles)
        run = cs.kernel[1] * c

        def kernel_row(ki, accs):
            ptr = self.gep(self.xpad, self.add(base, self.mul(ki, dh * wp * c)))
            b_off = self.add(b_panel, self.mul(ki, run * p.nr))
            rows_at = [(ptr, off) for off in offsets]
            return self.run(rows_at, run, b_off, pan, accs, p.unroll)

        accs = self.loop(cs.kernel[0], accs, kernel_row)
        self.finish(place, rows, pan, accs, kr)


def emit_pad(module: ir.Module, name: str, plan: ConvPlan) -> ir.Function:
    """``void name(ptr xpad, ptr x)``: every image of x copied into the middle of a zeroed
    [hp, wp, C] image (rows of the border zeroed, then one copy per interior row)."""
    cs = plan.cs
    (h, w), (ph, pw), c = cs.ins, cs.padding, cs.cg
    hp, wp = plan.padded_dims
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR, PTR]), name)
    fn.attributes.add("nounwind")
    for arg in fn.args:
        arg.add_attribute("noalias")
    s = SimdBuilder(module, fn, 16)
    dst, src = fn.args
    i1 = ir.IntType(1)
    memset = s.intrinsic(
        "llvm.memset.p0.i64", ir.VoidType(), [PTR, ir.IntType(8), I64, i1]
    )
    memcpy = s.intrinsic("llvm.memcpy.p0.p0.i64", ir.VoidType(), [PTR, PTR, I64, i1])
    zero8, false = ir.Constant(ir.IntType(8), 0), ir.Constant(i1, 0)

    def zero(off, floats: int) -> None:
        if floats:
            s.b.call(memset, [s.gep(dst, off), zero8, s.i64(4 * floats), false])

    def image(nb, _):
        base = s.mul(nb, hp * wp * c)
        zero(base, ph * wp * c)
        zero(s.add(base, (ph + h) * wp * c), ph * wp * c)

        def row(y, _):
            out = s.add(base, s.mul(s.add(y, ph), wp * c))
            zero(out, pw * c)
            from_ = s.add(s.mul(nb, h * w * c), s.mul(y, w * c))
            s.b.call(
                memcpy,
                [
                    s.gep(dst, s.add(out, pw * c)),
                    s.gep(src, from_),
                    s.i64(4 * w * c),
                    false,
                ],
            )
            zero(s.add(out, (pw + w) * c), pw * c)
            return []

        s.loop(h, [], row)
        return []

    s.loop(cs.n, [], image)
    s.b.ret_void()
    return fn
