"""Depthwise channels-last convolution (groups == C == O, MobileNet / EfficientNet):

    void name(ptr out, ptr x, ptr w, ptr bias, ptr residual, ptr unused, i64 first, i64 count)

Work items are output rows (image, oh). Each channel only meets its own input channel, so
the vectors run along channels: a tile of ``tw`` output positions x ``nv`` channel
vectors keeps tw*nv accumulators; per tap it loads one weight vector per channel vector
and one input vector per position and channel vector (no broadcasts). A tap that falls
in the padding reads a zero row (as in conv.py), so the loops carry no bounds checks.

    x  [N, H, W, C]   w  [kh, kw, C] (``pack_depthwise_weight``)   out, residual [N, OH, OW, C]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import llvmlite.ir as ir
import torch

from .gemm import Epilogue
from .im2col import ConvShape
from .simd import F32, I64, PTR, SimdBuilder

__all__ = [
    "DepthwisePlan",
    "emit_depthwise",
    "pack_depthwise_weight",
    "is_depthwise",
    "plan_depthwise",
]


@dataclass(frozen=True)
class DepthwisePlan:
    cs: ConvShape
    tw: int = 4  # output positions per tile
    nv: int = 4  # channel vectors per tile
    vw: int = 16

    @property
    def items(self) -> int:
        return self.cs.n * self.cs.outs[0]

    @property
    def flops(self) -> int:
        cs = self.cs
        return 2 * cs.n * cs.spatial_out * cs.og * cs.kernel[0] * cs.kernel[1]


def is_depthwise(cs: ConvShape) -> bool:
    return len(cs.kernel) == 2 and cs.cg == 1 and cs.og == 1 and cs.groups > 1


def plan_depthwise(cs: ConvShape, vw: int = 16) -> DepthwisePlan:
    """Up to 4 channel vectors, and as many positions as keep 24 accumulators."""
    nv = max(1, min(4, math.ceil(cs.groups / vw)))
    return DepthwisePlan(cs, max(1, min(24 // nv, cs.outs[1])), nv, vw)


def pack_depthwise_weight(weight: torch.Tensor) -> torch.Tensor:
    """[C, 1, kh, kw] -> [kh, kw, C] contiguous."""
    return weight.float()[:, 0].permute(1, 2, 0).contiguous()


def emit_depthwise(
    module: ir.Module,
    name: str,
    plan: DepthwisePlan,
    *,
    epilogue: Epilogue | None = None,
    bias: bool = False,
    residual: str | None = None,
) -> ir.Function:
    fn = ir.Function(
        module, ir.FunctionType(ir.VoidType(), [PTR] * 6 + [I64] * 2), name
    )
    for i, arg in enumerate(fn.args):
        arg.name = ("out", "x", "w", "bias", "residual", "unused", "first", "count")[i]
        if i < 6:
            arg.add_attribute("noalias")
    fn.attributes.add("nounwind")
    _Depthwise(module, fn, plan, epilogue, bias, residual).emit()
    return fn


class _Depthwise(SimdBuilder):
    def __init__(self, module, fn, plan: DepthwisePlan, epilogue, bias, residual):
        super().__init__(module, fn, plan.vw)
        self.plan, self.cs = plan, plan.cs
        self.epilogue, self.has_bias, self.residual = epilogue, bias, residual
        self.out, self.x, self.w, self.bias, self.res = fn.args[:5]
        self.first, self.count = fn.args[6:]
        self.channels = plan.cs.groups
        g = ir.GlobalVariable(
            module, ir.ArrayType(F32, self.channels), f"{fn.name}.zeros"
        )
        g.linkage, g.global_constant, g.align = "internal", True, 64
        g.initializer = ir.Constant(g.value_type, None)
        self.zeros = g

    def emit(self) -> None:
        b = self.b
        pre, head = b.block, b.append_basic_block("rows")
        body, end = b.append_basic_block("row"), b.append_basic_block("rows.end")
        b.branch(head)
        b.position_at_end(head)
        it = b.phi(I64, "row")
        it.add_incoming(self.i64(0), pre)
        b.cbranch(b.icmp_signed("<", it, self.count), body, end)
        b.position_at_end(body)
        row = b.add(self.first, it)
        self.row(
            b.udiv(row, self.i64(self.cs.outs[0])),
            b.urem(row, self.i64(self.cs.outs[0])),
        )
        it.add_incoming(b.add(it, self.i64(1)), b.block)
        b.branch(head)
        b.position_at_end(end)
        b.ret_void()

    def row(self, n, oh) -> None:
        """One output row: tiles of tw positions x nv channel vectors, edges static."""
        p, c, ow = self.plan, self.channels, self.cs.outs[1]
        block = p.nv * p.vw
        full_c, rem_c = divmod(c, block)
        full_w, rem_w = divmod(ow, p.tw)

        def widths(c0, nv, lanes):
            def tile(t, _):
                self.tile(n, oh, self.mul(t, p.tw), p.tw, c0, nv, lanes)
                return []

            self.loop(full_w, [], tile)
            if rem_w:
                self.tile(n, oh, self.i64(full_w * p.tw), rem_w, c0, nv, lanes)

        self.loop(
            full_c, [], lambda cb, _: widths(self.mul(cb, block), p.nv, p.vw) or []
        )
        if rem_c:
            nv = math.ceil(rem_c / p.vw)
            widths(self.i64(full_c * block), nv, rem_c - (nv - 1) * p.vw)

    def tile(self, n, oh, ow0, tw: int, c0, nv: int, lanes: int) -> None:
        cs, b, vw, c = self.cs, self.b, self.plan.vw, self.channels
        (h, w), (kh, kw) = cs.ins, cs.kernel
        (sh, sw), (ph, pw), (dh, dw) = cs.stride, cs.padding, cs.dilation
        ih0 = b.sub(self.mul(oh, sh), self.i64(ph))
        accs = [ir.Constant(self.vec, None)] * (tw * nv)
        fma = self.fma()

        def tap(ki, kj, accs):
            ih = self.add(ih0, self.mul(ki, dh))
            row_ok = b.icmp_unsigned("<", ih, self.i64(h))
            wrow = self.add(self.mul(self.add(self.mul(ki, kw), kj), c), c0)
            wv = [
                self.load_vec(
                    self.w, self.add(wrow, v * vw), lanes if v == nv - 1 else vw
                )
                for v in range(nv)
            ]
            out = list(accs)
            for t in range(tw):
                iw = self.add(
                    b.sub(self.mul(self.add(ow0, t), sw), self.i64(pw)),
                    self.mul(kj, dw),
                )
                ok = b.and_(row_ok, b.icmp_unsigned("<", iw, self.i64(w)))
                off = self.add(
                    self.mul(
                        self.add(self.mul(self.add(self.mul(n, h), ih), w), iw), c
                    ),
                    c0,
                )
                ptr = b.select(ok, self.gep(self.x, off), self.gep(self.zeros, c0))
                for v in range(nv):
                    xv = self.load_vec(ptr, v * vw, lanes if v == nv - 1 else vw)
                    out[t * nv + v] = b.call(fma, [xv, wv[v], out[t * nv + v]])
            return out

        accs = self.loop(
            kh, accs, lambda ki, a: self.loop(kw, a, lambda kj, a2: tap(ki, kj, a2))
        )
        self.store(n, oh, ow0, tw, c0, nv, lanes, accs)

    def store(self, n, oh, ow0, tw: int, c0, nv: int, lanes: int, accs) -> None:
        cs, b, vw, c = self.cs, self.b, self.plan.vw, self.channels
        for t in range(tw):
            row = self.add(
                self.mul(self.add(self.mul(n, cs.outs[0]), oh), cs.outs[1]), ow0, t
            )
            for v in range(nv):
                n_lanes = lanes if v == nv - 1 else vw
                col = self.add(c0, v * vw)
                off = self.add(self.mul(row, c), col)
                acc = accs[t * nv + v]
                if self.has_bias:
                    acc = b.fadd(acc, self.load_vec(self.bias, col, n_lanes))
                if self.residual == "pre":
                    acc = b.fadd(acc, self.load_vec(self.res, off, n_lanes))
                if self.epilogue is not None:
                    acc = self.epilogue(b, acc, row, col)
                if self.residual == "post":
                    acc = b.fadd(acc, self.load_vec(self.res, off, n_lanes))
                self.store_vec(acc, self.out, off, n_lanes)
