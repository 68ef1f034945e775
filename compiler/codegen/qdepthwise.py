"""The int8 depthwise convolution: ``cuvil.qconv2d`` with groups == C == O (MobileNet's).

No GEMM: each output channel reads its own input channel, so the kernel runs over 16
channels at once (a ``<16 x i32>`` accumulator per output position):

    acc[c] = sum over taps (kh, kw) of (x[c, ih, iw] - x_zp) * w[c, kh, kw]

with a tap outside the image contributing 0 (padding is the zero point: a real zero).
The zero point is subtracted per tap, so the epilogue's correction array is zero; the
epilogue is the GEMMs' (qsimd.Vec.epilogue: scale products, bias, clamp, requantize),
so the result equals the op's reference bit for bit (u8 - zp fits 9 bits, times an i8:
exact in int32 for any kernel size the verifier admits).

The weight is an int32 constant ``[kh*kw][C padded to 16]``; the input is read as 16
consecutive bytes where it is ``nhwc`` (what fold-qdq makes a quantize feeding a
qconv2d write), lane by lane otherwise. A tap's row and column are clamped into the
image and the loaded value replaced by the zero point outside it (no branches). Output
rows (oh) are split over ``num_threads`` (parallel.py); an NCHW result goes through a
``[OH*OW, C]`` tile buffer and qconv's transpose, like the GEMM convolutions.
"""

from __future__ import annotations

import llvmlite.ir as ir
import torch

from ..ir.core import Operation
from .kernel import Kernel, Prepared, physical_strides
from .loops import for_range, i64
from .parallel import parallel_for
from .qsimd import I8, I32, I64, PTR, V16I32, QEpilogue, Vec

__all__ = ["is_depthwise", "prepare_qdepthwise"]

_V16I8 = ir.VectorType(I8, 16)


def is_depthwise(groups: int, c: int, o: int, w_in: int) -> bool:
    """groups == C == O, one input channel per filter (channel multiplier 1)."""
    return groups > 1 and groups == c == o and w_in == 1


def _round16(n: int) -> int:
    return -(-n // 16) * 16


class _Shape:
    def __init__(self, op: Operation) -> None:
        x, w = op.operand_types[:2]
        self.n, self.c, self.h, self.w = x.shape
        _, _, self.kh, self.kw = w.shape
        self.oh, self.ow = op.result.type.shape[2:]
        a = op.attrs
        self.stride, self.pad, self.dil = a["stride"], a["padding"], a["dilation"]
        self.strides = physical_strides(x)  # element strides of (n, c, h, w)
        self.cp = _round16(self.c)


def weight_taps(w: torch.Tensor, cp: int) -> torch.Tensor:
    """w[C, 1, kh, kw] (int8) as int32 [kh*kw][cp] (zero padded channels)."""
    c = w.shape[0]
    taps = torch.zeros(w.shape[2] * w.shape[3], cp, dtype=torch.int32)
    taps[:, :c] = w.reshape(c, -1).t().to(torch.int32)
    return taps.reshape(-1)


def _rows_fn(module: ir.Module, s: _Shape, ep: QEpilogue, zp: int) -> ir.Function:
    """``f(x_img, out_img, taps, corr, mult, bias, first, count)``: output rows
    [first, first + count) of one image."""
    name = f"cuvil_qdw{len(module.globals)}_{s.c}x{s.oh}x{s.ow}"
    fn = ir.Function(
        module, ir.FunctionType(ir.VoidType(), [PTR] * 6 + [I64] * 2), name
    )
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    v = Vec(b)
    x, out, taps, *params, first, count = fn.args
    v.out_ptr = out
    full, last = divmod(s.c, 16)
    with for_range(b, count, name="r") as r:
        oh = b.add(first, r)
        with for_range(b, s.ow, name="ow") as ow:
            pos = b.add(b.mul(oh, i64(s.ow)), ow)
            if full:
                with for_range(b, full, name="cb") as cb:
                    _block(v, s, ep, zp, (x, taps, params), (oh, ow, pos), cb, 16)
            if last:
                _block(v, s, ep, zp, (x, taps, params), (oh, ow, pos), i64(full), last)
    b.ret_void()
    return fn


def _block(v: Vec, s: _Shape, ep: QEpilogue, zp: int, ptrs, at, cb, lanes: int):
    """The 16 (or `lanes`) channels from 16 * cb at one output position."""
    b = v.b
    x, taps, params = ptrs
    oh, ow, pos = at
    c0 = b.mul(cb, i64(16))
    zpv = v.vconst(I32, zp)
    acc = ir.Constant(V16I32, [0] * 16)
    for kh in range(s.kh):
        ih = b.add(b.mul(oh, i64(s.stride[0])), i64(kh * s.dil[0] - s.pad[0]))
        for kw in range(s.kw):
            iw = b.add(b.mul(ow, i64(s.stride[1])), i64(kw * s.dil[1] - s.pad[1]))
            inside, hc, wc = _clamped(b, ih, s.h, iw, s.w)
            _, sc, sh, sw = s.strides
            base = b.add(
                b.add(b.mul(hc, i64(sh)), b.mul(wc, i64(sw))), b.mul(c0, i64(sc))
            )
            xv = b.zext(_load_lanes(v, x, base, sc, lanes), V16I32)
            xv = b.select(inside, b.sub(xv, zpv), ir.Constant(V16I32, [0] * 16))
            tap = (kh * s.kw + kw) * s.cp
            wv = v.load(V16I32, taps, b.mul(b.add(c0, i64(tap)), i64(4)))
            acc = b.add(acc, b.mul(xv, wv))
    v.epilogue(ep, acc, tuple(params), pos, c0, v.lane_mask(lanes), lanes == 16)


def _clamped(b: ir.IRBuilder, ih, h: int, iw, w: int):
    """(inside the image, ih and iw clamped into it)."""
    zero = i64(0)
    ok = b.and_(
        b.and_(b.icmp_signed(">=", ih, zero), b.icmp_signed("<", ih, i64(h))),
        b.and_(b.icmp_signed(">=", iw, zero), b.icmp_signed("<", iw, i64(w))),
    )

    def clamp(i, n: int):
        i = b.select(b.icmp_signed("<", i, zero), zero, i)
        return b.select(b.icmp_signed(">=", i, i64(n)), i64(n - 1), i)

    return ok, clamp(ih, h), clamp(iw, w)


def _load_lanes(v: Vec, x, base, sc: int, lanes: int) -> ir.Value:
    """<16 x i8>: x[base + l * sc] for l < lanes (0 above): one load when contiguous."""
    if sc == 1 and lanes == 16:
        return v.load(_V16I8, x, base)
    b, vec = v.b, ir.Constant(_V16I8, [0] * 16)
    for lane in range(lanes):
        byte = v.load(I8, x, b.add(base, i64(lane * sc)))
        vec = b.insert_element(vec, byte, ir.Constant(I32, lane))
    return vec


def prepare_qdepthwise(
    op: Operation, param_data, w: torch.Tensor, arrays: list, ep, threads: int
) -> Prepared:
    """`w` the int8 weight [C, 1, kh, kw]; `arrays` (mult, bias?) padded to 16."""
    from .qconv import transpose_rows

    s = _Shape(op)
    out_nhwc = op.result.type.layout == "nhwc"
    zp = op.attrs.get("x_zero_point", 0)
    corr = torch.zeros(s.cp, dtype=torch.int32)
    extra = [weight_taps(w, s.cp), corr, *arrays]
    hw = s.oh * s.ow
    scratch = [] if out_nhwc else [hw * s.c * ep.out_bytes]
    flops = 2 * hw * s.c * s.kh * s.kw * 4  # weighted: per element, not per GEMM MAC

    def emit(k: Kernel) -> None:
        b = k.b
        rows = _rows_fn(b.module, s, ep, zp)
        params = [k.extra(i) for i in range(1, len(extra))]
        params += [ir.Constant(PTR, None)] * (3 - len(params))
        with for_range(b, s.n, name="img") as img:
            x = b.gep(k.inp(0), [b.mul(img, i64(s.c * s.h * s.w))], source_etype=I8)
            out = b.gep(
                k.out(), [b.mul(img, i64(s.c * hw * ep.out_bytes))], source_etype=I8
            )
            tile = out if out_nhwc else k.scratch(0)
            args = [x, tile, k.extra(0), *params]
            parallel_for(k, rows, args, s.oh, threads, flops)
            if not out_nhwc:
                transpose_rows(k, tile, out, hw, s.c, ep.out_type)

    return Prepared(emit, extra=extra, scratch=scratch)
