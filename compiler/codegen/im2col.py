"""The GEMM view of a convolution: its shape (``ConvShape``) and im2col into scratch.

NCHW (``im2col``): col[(c, *kpos), *opos] = x[c, opos*s - p + kpos*d], the GEMM's B
operand, each row split into zeros / copy / zeros runs so the copy has no bounds checks.
A 1x1 convolution with stride 1 and no padding (``ConvShape.direct``) needs none: the
input already is the operand. Channels-last convolutions need no im2col at all (conv.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from ..ir.types import DType
from .kernel import Kernel
from .loops import for_range, i64, loop_nest

__all__ = ["ConvShape", "conv_shape", "im2col"]


@dataclass(frozen=True)
class ConvShape:
    """A convolution as GEMMs: per image and group, [og, spatial_out] = [og, k] @ col."""

    n: int
    groups: int
    cg: int  # input channels per group
    og: int  # output channels per group
    ins: tuple[int, ...]
    outs: tuple[int, ...]
    kernel: tuple[int, ...]
    stride: tuple[int, ...]
    padding: tuple[int, ...]
    dilation: tuple[int, ...]

    @property
    def k(self) -> int:
        return self.cg * _prod(self.kernel)

    @property
    def spatial_out(self) -> int:
        return _prod(self.outs)

    @property
    def spatial_in(self) -> int:
        return _prod(self.ins)

    @property
    def direct(self) -> bool:
        """1x1, stride 1, no padding: the input already is the GEMM's B operand."""
        return (
            all(k == 1 for k in self.kernel)
            and all(s == 1 for s in self.stride)
            and all(p == 0 for p in self.padding)
        )


def _prod(xs) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def conv_shape(attrs, tx, tw, to) -> ConvShape:
    """The GEMM view of a convolution from its attributes and operand/result types."""
    g = attrs["groups"]
    return ConvShape(
        tx.shape[0],
        g,
        tw.shape[1],
        tw.shape[0] // g,
        tuple(tx.shape[2:]),
        tuple(to.shape[2:]),
        tuple(tw.shape[2:]),
        tuple(attrs["stride"]),
        tuple(attrs["padding"]),
        tuple(attrs["dilation"]),
    )


def im2col(k: Kernel, cs: ConvShape, x_ptr: ir.Value, col: ir.Value) -> None:
    """col[(c, *kpos), *opos] = x[c, opos*s - p + kpos*d], zero outside the input.

    The last spatial dim is split into three runs per row (zeros, copy, zeros) whose bounds
    are computed per kernel offset, so the copy loop has no bounds checks.
    """
    b, f32 = k.b, DType.f32
    kernel_dims = list(cs.kernel)
    row_len = cs.outs[-1]
    with loop_nest(b, [cs.cg, *kernel_dims], name="ck") as ck:
        c, kpos = ck[0], ck[1:]
        kidx = c
        for kd, kk in zip(kpos, kernel_dims):
            kidx = b.add(b.mul(kidx, i64(kk)), kd)
        row_base = b.mul(kidx, i64(cs.spatial_out))
        lo, hi = _valid_run(b, kpos[-1], cs, -1)
        with loop_nest(b, list(cs.outs[:-1]), name="oh") as opos:
            in_base, valid = _outer_position(b, cs, c, kpos, opos)
            dst = b.add(row_base, _flat(b, opos, cs.outs[:-1], row_len))
            lo_v = b.select(valid, lo, i64(row_len))
            hi_v = b.select(valid, hi, i64(row_len))
            _fill_zero(k, col, dst, i64(0), lo_v)
            start = b.sub(b.mul(kpos[-1], i64(cs.dilation[-1])), i64(cs.padding[-1]))
            with for_range(b, hi_v, start=lo_v, name="ow") as ow:
                src = b.add(in_base, b.add(b.mul(ow, i64(cs.stride[-1])), start))
                k.store(k.load(x_ptr, src, f32), col, b.add(dst, ow), f32)
            _fill_zero(k, col, dst, hi_v, i64(row_len))


def _valid_run(b: ir.IRBuilder, kpos: ir.Value, cs: ConvShape, dim: int):
    """[lo, hi): output positions o with 0 <= o*s - p + kpos*d < size."""
    s, p, d, size, n_out = (
        cs.stride[dim],
        cs.padding[dim],
        cs.dilation[dim],
        cs.ins[dim],
        cs.outs[dim],
    )
    shift = b.sub(i64(p), b.mul(kpos, i64(d)))  # o*s >= shift  and  o*s < size + shift
    lo = b.sdiv(b.add(shift, i64(s - 1)), i64(s))  # ceil for shift >= 0
    lo = b.select(b.icmp_signed("<", shift, i64(0)), i64(0), lo)
    hi = b.sdiv(b.add(b.add(shift, i64(size)), i64(s - 1)), i64(s))
    hi = b.select(b.icmp_signed(">", hi, i64(n_out)), i64(n_out), hi)
    hi = b.select(b.icmp_signed("<", hi, lo), lo, hi)
    return lo, hi


def _outer_position(b: ir.IRBuilder, cs: ConvShape, c, kpos, opos):
    """Input offset of the row start (channel c, outer spatial dims) and whether it is inside."""
    base = b.mul(c, i64(cs.spatial_in))
    valid = ir.Constant(ir.IntType(1), 1)
    inner = 1
    strides = []
    for size in reversed(cs.ins):
        strides.append(inner)
        inner *= size
    strides = list(reversed(strides))
    for dim, (o, kp) in enumerate(zip(opos, kpos[:-1])):
        pos = b.add(
            b.sub(b.mul(o, i64(cs.stride[dim])), i64(cs.padding[dim])),
            b.mul(kp, i64(cs.dilation[dim])),
        )
        inside = b.and_(
            b.icmp_signed(">=", pos, i64(0)), b.icmp_signed("<", pos, i64(cs.ins[dim]))
        )
        valid = b.and_(valid, inside)
        safe = b.select(inside, pos, i64(0))
        base = b.add(base, b.mul(safe, i64(strides[dim])))
    return base, valid


def _flat(b: ir.IRBuilder, idx, dims, inner: int) -> ir.Value:
    """Row-major position of `idx` within `dims`, times `inner`."""
    off = i64(0)
    for i, d in zip(idx, dims):
        off = b.add(b.mul(off, i64(d)), i)
    return b.mul(off, i64(inner))


def _fill_zero(k: Kernel, ptr, base, start, stop) -> None:
    with for_range(k.b, stop, start=start, name="z") as i:
        k.store(ir.Constant(ir.FloatType(), 0.0), ptr, k.b.add(base, i), DType.f32)
