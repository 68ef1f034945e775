"""int8 and bf16 convolutions: per image, out[OH*OW, O] = rows[OH*OW, K] @ W^T[K, O].

The A operand is the im2col rows of the image with k ordered (kh, kw, c), so each
kernel offset is one run of C channels: contiguous when the input is ``nhwc`` (what the
fold-qdq pass makes ``cuvil.quantize`` write), strided for a contiguous input. Positions
outside the image take the padding value: the input zero point (int8: a real zero) or
bf16 0. A 1x1 convolution with stride 1 and no padding on an ``nhwc`` input whose
channel count suits the GEMM reads the input itself. The weight is reordered to
``[O, kh*kw*C]`` and packed at compile time (qgemm.pack_weight).

The result is written by the GEMM's epilogue as rows of O: directly for ``nhwc`` (int8
results feeding another qconv2d), else into a tile buffer transposed into NCHW.
"""

from __future__ import annotations

import llvmlite.ir as ir
import torch

from ..ir.core import Module, Operation
from ..ir.ops.quant import f32
from ..ir.types import DType
from .bf16gemm import to_bf16
from .kernel import Kernel, Prepared, physical_strides
from .loops import for_range, i64
from .qgemm import QGemmPlan, pack_weight, padded, plan_qgemm, qgemm_call
from .qops import NULL, _const, column_arrays, epilogue_of, isa_for, memset
from .qsimd import I8, I16

__all__ = ["prepare_qconv", "prepare_conv_bf16", "transpose_rows"]


class _Geometry:
    """The sizes of one convolution op (static shapes)."""

    def __init__(self, op: Operation) -> None:
        x, w = op.operand_types[:2]
        out = op.result.type
        self.n, self.c, self.h, self.w = x.shape
        self.o, _, self.kh, self.kw = w.shape
        self.oh, self.ow = out.shape[2:]
        a = op.attrs
        self.stride, self.pad, self.dil = a["stride"], a["padding"], a["dilation"]
        self.k = self.c * self.kh * self.kw
        self.hw = self.oh * self.ow
        self.in_strides = physical_strides(x)  # element strides of (n, c, h, w)
        self.in_nhwc = x.layout == "nhwc"
        self.out_nhwc = out.layout == "nhwc"

    def direct(self, isa: str) -> bool:
        ones = (self.kh, self.kw, *self.stride) == (1, 1, 1, 1) and self.pad == (0, 0)
        if not (ones and self.in_nhwc):
            return False
        if isa == "amx":
            return self.c % 64 == 0 and self.hw % 32 == 0
        return self.c % 4 == 0


def _im2col(k: Kernel, g: _Geometry, x, dst, plan: QGemmPlan, pad, conv) -> None:
    """dst[(oh, ow), (kh, kw, c)] of one image at `x`; rows of plan.lda bytes."""
    b = k.b
    esize = 4 // plan.group
    _, sc, sh, sw = g.in_strides
    src = DType.u8 if conv is None else DType.f32
    with for_range(b, g.oh, name="oh") as oh, for_range(b, g.ow, name="ow") as ow:
        row = b.mul(b.add(b.mul(oh, i64(g.ow)), ow), i64(plan.lda))
        for kh in range(g.kh):
            ih = b.add(b.mul(oh, i64(g.stride[0])), i64(kh * g.dil[0] - g.pad[0]))
            for kw in range(g.kw):
                iw = b.add(b.mul(ow, i64(g.stride[1])), i64(kw * g.dil[1] - g.pad[1]))
                ok = _inside(b, ih, g.h, iw, g.w)
                base = b.add(row, i64((kh * g.kw + kw) * g.c * esize))
                src_base = b.add(b.mul(ih, i64(sh)), b.mul(iw, i64(sw)))
                with b.if_else(ok) as (inside, outside):
                    with inside:
                        _run(
                            k,
                            g.c,
                            base,
                            esize,
                            dst,
                            lambda c, s=src_base: _read(
                                k, x, b.add(s, b.mul(c, i64(sc))), src, conv
                            ),
                        )
                    with outside:
                        _run(k, g.c, base, esize, dst, lambda c: pad)


def _inside(b: ir.IRBuilder, ih, h: int, iw, w: int) -> ir.Value:
    zero = i64(0)
    conds = [
        b.icmp_signed(">=", ih, zero),
        b.icmp_signed("<", ih, i64(h)),
        b.icmp_signed(">=", iw, zero),
        b.icmp_signed("<", iw, i64(w)),
    ]
    ok = conds[0]
    for c in conds[1:]:
        ok = b.and_(ok, c)
    return ok


def _read(k: Kernel, x, offset, src: DType, conv):
    v = k.load(x, offset, src)
    return conv(k.b, v) if conv is not None else v


def _run(k: Kernel, count: int, base, esize: int, dst, value) -> None:
    b = k.b
    with for_range(b, count, name="ch") as c:
        addr = b.gep(dst, [b.add(base, b.mul(c, i64(esize)))], source_etype=I8)
        b.store(value(c), addr)


def _conv_kernel(
    op, g: _Geometry, plan: QGemmPlan, arrays: list, pad, conv, threads: int
) -> Prepared:
    """The per-image loop: A = im2col (or the input), GEMM + epilogue into the output;
    a contiguous (NCHW) result goes through a [OH*OW, O] tile buffer and a transpose
    (16 lanes scattered to 16 channel planes cost ~5x more)."""
    ep = epilogue_of(op, g.o)
    direct = conv is None and g.direct(plan.isa)
    scratch = [] if direct else [plan.mp * plan.lda]
    if not g.out_nhwc:
        scratch.append(g.hw * g.o * ep.out_bytes)
    in_bytes = 1 if conv is None else 4

    def emit(k: Kernel) -> None:
        b = k.b
        if not direct:
            memset(k, k.scratch(0), plan.mp * plan.lda)
        params = [k.extra(i) for i in range(1, len(arrays))]
        if conv is not None:  # bf16: the bias only
            params = [NULL, NULL, *params]
        params += [NULL] * (3 - len(params))
        with for_range(b, g.n, name="img") as img:
            x = b.gep(
                k.inp(0), [b.mul(img, i64(g.c * g.h * g.w * in_bytes))], source_etype=I8
            )
            a = x
            if not direct:
                _im2col(k, g, x, k.scratch(0), plan, pad, conv)
                a = k.scratch(0)
            out = b.gep(
                k.out(), [b.mul(img, i64(g.o * g.hw * ep.out_bytes))], source_etype=I8
            )
            tile = out if g.out_nhwc else k.scratch(len(scratch) - 1)
            qgemm_call(k, plan, ep, [tile, a, k.extra(0), *params], threads)
            if not g.out_nhwc:
                transpose_rows(k, tile, out, g.hw, g.o, ep.out_type)

    return Prepared(emit, extra=arrays, scratch=scratch)


def transpose_rows(k: Kernel, src, dst, rows: int, cols: int, typ: ir.Type) -> None:
    """dst[c, r] = src[r, c]: 16 x 16 blocks transposed in registers (4-byte types),
    the remainders element by element. A plain loop missed the cache on every load
    for ResNet-18's 12544 x 64 first convolution; a 16-lane scatter in the epilogue
    was 3x slower on small outputs."""
    b = k.b
    rb, cb = (
        (rows // 16, cols // 16) if typ.intrinsic_name in ("f32", "i32") else (0, 0)
    )
    r16, c16 = (rb * 16, cb * 16) if rb and cb else (0, 0)
    if r16:
        with for_range(b, rb, name="tb") as r, for_range(b, cb, name="cb") as c:
            _block16(k, src, dst, b.mul(r, i64(16)), b.mul(c, i64(16)), rows, cols, typ)
    _scalar(k, src, dst, (r16, rows), (0, cols), rows, cols, typ)
    _scalar(k, src, dst, (0, r16), (c16, cols), rows, cols, typ)


def _block16(k: Kernel, src, dst, r0, c0, rows: int, cols: int, typ) -> None:
    b = k.b
    vt = ir.VectorType(typ, 16)

    def at(ptr, row, col, stride):
        off = b.add(b.mul(row, i64(stride)), col)
        return b.gep(ptr, [off], source_etype=typ)

    vecs = [
        b.load(at(src, b.add(r0, i64(i)), c0, cols), typ=vt, align=1) for i in range(16)
    ]
    for half in (8, 4, 2, 1):
        new = list(vecs)
        for i in (i for i in range(16) if not i & half):
            low = [16 + j - half if j & half else j for j in range(16)]
            high = [16 + j if j & half else j + half for j in range(16)]
            idx = ir.VectorType(ir.IntType(32), 16)
            new[i] = b.shuffle_vector(vecs[i], vecs[i + half], ir.Constant(idx, low))
            new[i + half] = b.shuffle_vector(
                vecs[i], vecs[i + half], ir.Constant(idx, high)
            )
        vecs = new
    for j in range(16):
        b.store(vecs[j], at(dst, b.add(c0, i64(j)), r0, rows), align=1)


def _scalar(k: Kernel, src, dst, row_span, col_span, rows, cols, typ) -> None:
    (r_lo, r_hi), (c_lo, c_hi) = row_span, col_span
    if r_hi <= r_lo or c_hi <= c_lo:
        return
    b = k.b
    with (
        for_range(b, c_hi, c_lo, name="tc") as c,
        for_range(b, r_hi, r_lo, name="tr") as r,
    ):
        at = b.gep(src, [b.add(b.mul(r, i64(cols)), c)], source_etype=typ)
        to = b.gep(dst, [b.add(b.mul(c, i64(rows)), r)], source_etype=typ)
        b.store(b.load(at, typ=typ), to)


def prepare_qconv(
    op: Operation, param_data, module: Module | None, threads: int = 1
) -> Prepared:
    if op.attrs["groups"] != 1:
        return _depthwise(op, param_data, threads)
    g = _Geometry(op)
    isa = isa_for(module, "int8")
    plan = plan_qgemm(g.hw, g.o, g.k, isa, lda=g.c if g.direct(isa) else None)
    w = _const(op, 1, param_data, "weight").permute(0, 2, 3, 1).reshape(g.o, g.k)
    bias = _const(op, 2, param_data, "bias") if len(op.operands) > 2 else None
    arrays = [pack_weight(w, plan), *column_arrays(op, w, bias, plan)]
    pad = ir.Constant(I8, op.attrs.get("x_zero_point", 0))
    return _conv_kernel(op, g, plan, arrays, pad, None, threads)


def _depthwise(op: Operation, param_data, threads: int) -> Prepared:
    """groups == C == O (the verifier admits no other grouping): qdepthwise.py."""
    from .qdepthwise import prepare_qdepthwise

    c = op.operand_types[0].shape[1]
    cp = -(-c // 16) * 16
    ws = torch.tensor(op.attrs["w_scale"], dtype=torch.float32)
    mult = torch.tensor(f32(op.attrs["x_scale"]), dtype=torch.float32) * ws
    arrays = [padded(mult, cp, torch.float32)]
    if len(op.operands) > 2:
        arrays.append(padded(_const(op, 2, param_data, "bias"), cp, torch.float32))
    w = _const(op, 1, param_data, "weight")
    ep = epilogue_of(op, c)
    return prepare_qdepthwise(op, param_data, w, arrays, ep, threads)


def prepare_conv_bf16(
    op: Operation, param_data, module: Module | None, threads: int = 1
) -> Prepared:
    g = _Geometry(op)
    plan = plan_qgemm(g.hw, g.o, g.k, isa_for(module, "bf16"), dtype="bf16")
    w = _const(op, 1, param_data, "weight").permute(0, 2, 3, 1).reshape(g.o, g.k)
    bias = _const(op, 2, param_data, "bias") if len(op.operands) > 2 else None
    packed = pack_weight(w.to(torch.bfloat16), plan).view(torch.int16)
    arrays = [packed, *column_arrays(op, w, bias, plan)]
    return _conv_kernel(op, g, plan, arrays, ir.Constant(I16, 0), to_bf16, threads)
