"""Kernels of cuvil.pad, cuvil.upsample and cuvil.group_norm over contiguous buffers.

pad maps each output index to its source per padded dim (constant: a select of the
clamped load and the pad value; reflect, replicate, circular: index arithmetic). The
upsample source indices and weights follow ATen's UpSample.h formulas
(``compute_scales_value``, ``area_pixel_compute_source_index``,
``guard_index_and_lambda``), so nearest picks the same pixels as torch: in float32,
except linear modes over double, which ATen computes in its opmath type, double (in
float32 a float64 model's bilinear align_corners resize was ~1e-7 off eager).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir

from ..ir.core import Operation
from ..ir.types import DType
from .kernel import Kernel, contiguous_strides
from .loops import for_range, i64, linear_offset, loop_nest
from .scalar import const, llvm_type

__all__ = ["emit_pad", "emit_upsample", "emit_group_norm"]

F32, F64, F16 = ir.FloatType(), ir.DoubleType(), ir.HalfType()


def _smin(b: ir.IRBuilder, x, y):
    return b.select(b.icmp_signed("<", x, y), x, y)


def _smax(b: ir.IRBuilder, x, y):
    return b.select(b.icmp_signed(">", x, y), x, y)


def _pad_source(b: ir.IRBuilder, o, lo: int, n: int, mode: str):
    """(source index, in bounds or None) of output index `o` in a dim of size n."""
    j = b.sub(o, i64(lo))
    if mode == "reflect":
        j = b.select(b.icmp_signed("<", j, i64(0)), b.neg(j), j)
        j = b.select(b.icmp_signed(">=", j, i64(n)), b.sub(i64(2 * (n - 1)), j), j)
        return j, None
    if mode == "circular":
        return b.srem(b.add(b.srem(j, i64(n)), i64(n)), i64(n)), None
    clamped = _smin(b, _smax(b, j, i64(0)), i64(max(n - 1, 0)))
    if mode == "replicate":
        return clamped, None
    ok = b.and_(b.icmp_signed(">=", j, i64(0)), b.icmp_signed("<", j, i64(n)))
    return clamped, ok


def emit_pad(k: Kernel, op: Operation) -> None:
    ti, to = k.in_type(0), k.out_type
    dtype, mode = ti.dtype, op.attrs["mode"]
    pads = {d: lo for d, lo, _ in op.pairs()}
    in_st = contiguous_strides(ti.shape)
    if mode == "constant" and 0 in ti.shape:  # nothing to read: all padding
        with for_range(k.b, to.numel(), name="o") as o:
            k.store(const(dtype, op.attrs["value"]), k.out(), o, dtype)
        return
    with loop_nest(k.b, list(to.shape), name="o") as idx:
        src, inside = [], None
        for d, o in enumerate(idx):
            if d not in pads:
                src.append(o)
                continue
            j, ok = _pad_source(k.b, o, pads[d], ti.shape[d], mode)
            src.append(j)
            if ok is not None:
                inside = ok if inside is None else k.b.and_(inside, ok)
        v = k.load(k.inp(0), linear_offset(k.b, src, in_st), dtype)
        if inside is not None:
            v = k.b.select(inside, v, const(dtype, op.attrs["value"]))
        k.store(
            v, k.out(), linear_offset(k.b, idx, contiguous_strides(to.shape)), dtype
        )


# ---- upsample ---------------------------------------------------------------------------
def _scale(n_in: int, n_out: int, scale, align: bool, ft=np.float32):
    """ATen's area_pixel_compute_scale / compute_scales_value in `ft` (its opmath)."""
    if align:
        return ft(n_in - 1) / ft(n_out - 1) if n_out > 1 else 0
    if scale is not None and scale > 0:
        return ft(1.0 / scale)
    return ft(n_in) / ft(n_out)


def _floor_index(b: ir.IRBuilder, x: ir.Value, n_in: int) -> ir.Value:
    """min(int64(floor(x)), n_in - 1) for a float32 or double x."""
    floor = b.module.declare_intrinsic("llvm.floor", [x.type])
    return _smin(b, b.fptosi(b.call(floor, [x]), ir.IntType(64)), i64(n_in - 1))


def _nearest(b: ir.IRBuilder, o, n_in: int, n_out: int, scale, exact: bool, short):
    """The source index of output index o. ATen's 2-d nearest kernel (``nearest_idx``)
    maps out == in and out == 2 * in directly, whatever the scale; 1-d and exact don't."""
    if short and n_out == n_in:
        return o
    if short and n_out == 2 * n_in:
        return b.ashr(o, i64(1))
    s = float(_scale(n_in, n_out, scale, False))
    if exact:  # floorf((dst + 0.5) * scale): computed in double, rounded to float
        x = b.fmul(b.fadd(b.sitofp(o, F64), ir.Constant(F64, 0.5)), ir.Constant(F64, s))
        return _floor_index(b, b.fptrunc(x, F32), n_in)
    return _floor_index(b, b.fmul(b.sitofp(o, F32), ir.Constant(F32, s)), n_in)


def _linear(b: ir.IRBuilder, o, n_in: int, n_out: int, scale, align: bool, ft=F32):
    """(i0, i1, lambda0, lambda1) of output index o, lambdas of type `ft` (float32, or
    double for a double input, ATen's opmath). Where the sizes agree ATen reads
    x[o] * 1 + x[o] * 0 whatever the scale factor (so an inf there becomes NaN, as in
    eager)."""
    one, zero = ir.Constant(ft, 1.0), ir.Constant(ft, 0.0)
    if n_in == n_out:
        return o, o, one, zero
    npt = np.float64 if ft == F64 else np.float32
    s = ir.Constant(ft, float(_scale(n_in, n_out, scale, align, npt)))
    dst = b.sitofp(o, ft)
    if align:
        real = b.fmul(s, dst)
    else:
        half = ir.Constant(ft, 0.5)
        real = b.fsub(b.fmul(s, b.fadd(dst, half)), half)
        real = b.select(b.fcmp_ordered("<", real, zero), zero, real)
    i0 = _floor_index(b, real, n_in)
    lam = b.fsub(real, b.sitofp(i0, ft))
    lam = b.select(b.fcmp_ordered("<", lam, zero), zero, lam)
    lam = b.select(b.fcmp_ordered(">", lam, one), one, lam)
    i1 = b.add(i0, b.zext(b.icmp_signed("<", i0, i64(n_in - 1)), ir.IntType(64)))
    return i0, i1, b.fsub(one, lam), lam


def _lerp_tree(k: Kernel, ptr, base, taps, strides, dtype, depth=0):
    """sum over the 2^n corners: lambda-weighted, outermost dim outermost."""
    if depth == len(taps):
        v = k.load(ptr, base, dtype)
        return k.b.fpext(v, F32) if v.type == F16 else v  # halves: in float, as ATen
    st = strides[depth]
    i0, i1, l0, l1 = taps[depth]
    parts = []
    for idx, lam in ((i0, l0), (i1, l1)):
        at = k.b.add(base, k.b.mul(idx, i64(st)))
        v = _lerp_tree(k, ptr, at, taps, strides, dtype, depth + 1)
        parts.append(k.b.fmul(v, _as(k.b, lam, v.type)))
    return k.b.fadd(parts[0], parts[1])


def _as(b: ir.IRBuilder, x: ir.Value, t: ir.Type) -> ir.Value:
    if x.type == t:
        return x
    return b.fpext(x, t) if t == F64 else b.fptrunc(x, t)


def emit_upsample(k: Kernel, op: Operation) -> None:
    ti, to = k.in_type(0), k.out_type
    a, dtype = op.attrs, ti.dtype
    n = len(a["size"])
    ins, outs = list(ti.shape[2:]), list(to.shape[2:])
    planes = ti.shape[0] * ti.shape[1]
    scales = list(a["scales"]) or [None] * n
    in_sp = contiguous_strides(ins)
    with loop_nest(k.b, [planes, *outs], name="o") as idx:
        p, o = idx[0], idx[1:]
        base = k.b.mul(p, i64(int(np.prod(ins))))
        if a["mode"] == "linear":
            ft = F64 if dtype is DType.f64 else F32
            taps = [
                _linear(k.b, oi, ni, no, sc, a["align_corners"], ft)
                for oi, ni, no, sc in zip(o, ins, outs, scales)
            ]
            v = _lerp_tree(k, k.inp(0), base, taps, in_sp, dtype)
            v = _as(k.b, v, llvm_type(dtype))
        else:
            exact = a["mode"] == "nearest-exact"
            short = not exact and n == 2
            src = [
                _nearest(k.b, oi, ni, no, sc, exact, short)
                for oi, ni, no, sc in zip(o, ins, outs, scales)
            ]
            v = k.load(k.inp(0), k.b.add(base, linear_offset(k.b, src, in_sp)), dtype)
        out_st = contiguous_strides([planes, *outs])
        k.store(v, k.out(), linear_offset(k.b, idx, out_st), dtype)


# ---- group norm ---------------------------------------------------------------------------
def _sum(k: Kernel, base, count: int, dtype: DType, center=None) -> ir.Value:
    """sum of x[base:base+count] (of (x - center)^2 with center), in double."""
    acc = k.alloca(F64, ir.Constant(F64, 0.0))
    with for_range(k.b, count, name="r") as r:
        v = _as(k.b, k.load(k.inp(0), k.b.add(base, r), dtype), F64)
        if center is not None:
            v = k.b.fsub(v, center)
            v = k.b.fmul(v, v)
        k.b.store(k.b.fadd(k.b.load(acc), v), acc)
    return k.b.load(acc)


def _float_range(k: Kernel, sq: ir.Value, dtype: DType) -> ir.Value:
    """The squared deviations' sum `sq` (double), or inf where it is past float's range
    and `dtype` is not double: torch's kernel accumulates them in float, so a group
    holding values past ~1.8e19 has var inf, rstd 0 and its output is the bias (fuzz
    7055279: a more accurate group_norm made a later product overflow where eager's
    did not)."""
    if dtype is DType.f64:
        return sq
    wide = k.b.fpext(k.b.fptrunc(sq, F32), F64)
    past = k.b.fcmp_ordered("==", wide, ir.Constant(F64, float("inf")))
    return k.b.select(past, wide, sq)


def emit_group_norm(k: Kernel, op: Operation) -> None:
    t = k.in_type(0)
    dtype, b = t.dtype, k.b
    n, c = t.shape[0], t.shape[1]
    g = op.attrs["groups"]
    hw = t.numel() // (n * c) if n * c else 0
    per = c // g
    count = per * hw
    has_w, has_b = len(op.operands) > 1, len(op.operands) > 2
    sqrt = b.module.declare_intrinsic("llvm.sqrt", [F64])
    inv = ir.Constant(F64, 1.0 / count if count else float("nan"))
    with for_range(b, n * g, name="ng") as ng:
        base = b.mul(ng, i64(count))
        mean = b.fmul(_sum(k, base, count, dtype), inv)
        var = b.fmul(_float_range(k, _sum(k, base, count, dtype, mean), dtype), inv)
        eps = ir.Constant(F64, op.attrs["eps"])
        rstd = b.fdiv(ir.Constant(F64, 1.0), b.call(sqrt, [b.fadd(var, eps)]))
        mean_r, rstd_r = _as(b, mean, llvm_type(dtype)), _as(b, rstd, llvm_type(dtype))
        with for_range(b, per, name="c") as cc:
            ch = b.add(b.mul(b.srem(ng, i64(g)), i64(per)), cc)
            w = k.load(k.inp(1), ch, dtype) if has_w else None
            bias = k.load(k.inp(2), ch, dtype) if has_b else None
            row = b.add(base, b.mul(cc, i64(hw)))
            with for_range(b, hw, name="s") as s:
                off = b.add(row, s)
                y = b.fmul(b.fsub(k.load(k.inp(0), off, dtype), mean_r), rstd_r)
                if w is not None:
                    y = b.fmul(y, w)
                if bias is not None:
                    y = b.fadd(y, bias)
                k.store(y, k.out(), off, dtype)
