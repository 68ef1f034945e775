"""Sliding-window kernels (max/avg pooling, adaptive average pooling) and embedding lookup."""

from __future__ import annotations

import math

from llvmlite import ir

from ..errors import CodegenError
from ..ir.core import Operation
from ..ir.types import DType
from .indexing import check_all, checked_index
from .kernel import Kernel, contiguous_strides, physical_strides
from .loops import I64, for_range, i64, linear_offset, loop_nest
from .rowsplit import memory_order, output_nest, split_rows
from .scalar import const, emit_cast, llvm_type
from .scalar_unsigned import icmp, int_range

__all__ = ["emit_pool", "emit_adaptive_avg_pool", "emit_embedding"]


def _spatial(k: Kernel, op: Operation):
    """(planes, in spatial dims, out spatial dims) with planes = N*C flattened."""
    n = op.SPATIAL
    ti, to = k.in_type(0), k.out_type
    planes = 1
    for d in ti.shape[: ti.rank - n]:
        planes *= d
    return planes, list(ti.shape[ti.rank - n :]), list(to.shape[to.rank - n :])


def _in_bounds(b: ir.IRBuilder, pos: ir.Value, size: int) -> ir.Value:
    lo = b.icmp_signed(">=", pos, i64(0))
    return b.and_(lo, b.icmp_signed("<", pos, i64(size)))


def _pool_init(dtype: DType, kind: str) -> ir.Constant:
    if kind == "max" and not dtype.is_float:
        return ir.Constant(llvm_type(dtype), int_range(dtype)[0])
    return const(dtype, float("-inf") if kind == "max" else 0.0)


def _greater(b: ir.IRBuilder, v, cur, dtype: DType) -> ir.Value:
    """v replaces the running max: larger, or NaN (which wins, as in torch)."""
    if not dtype.is_float:  # integer max pooling
        return icmp(b, ">", v, cur, dtype)
    return b.or_(b.fcmp_ordered(">", v, cur), b.fcmp_unordered("uno", v, v))


def emit_pool(k: Kernel, op: Operation, kind: str, threads: int = 1) -> None:
    """kind "max" or "avg"; padding positions are skipped (max) or counted per torch (avg).

    Reads and writes through the layouts' strides (contiguous, nhwc, nwc); with
    `threads` > 1 a large one is split by its outermost rows (rowsplit.py)."""
    to = k.out_type
    rows, flops = 1, 0
    if to.is_static and to.rank:
        rows = to.shape[memory_order(to.shape, physical_strides(to))[0]]
        flops = to.numel() * math.prod(op.attrs["kernel"])
    with split_rows(k, rows, threads, flops) as (kk, first, stop):
        _pool_rows(kk, op, kind, (first, stop))


def _pool_rows(k: Kernel, op: Operation, kind: str, span) -> None:
    """emit_pool's loops over output rows [span) (rowsplit.output_nest)."""
    ti, to = k.in_type(0), k.out_type
    lead = to.rank - op.SPATIAL
    ins = list(ti.shape[lead:])
    a, dtype = op.attrs, ti.dtype
    wide = _accumulator(dtype) if kind == "avg" else dtype
    kern, stride, pad = a["kernel"], a["stride"], a["padding"]
    dil = a.get("dilation", (1,) * len(kern))
    in_st, out_st = physical_strides(ti), physical_strides(to)
    with output_nest(k, list(to.shape), out_st, span) as idx:
        p, o = idx[:lead], idx[lead:]
        starts = [
            k.b.sub(k.b.mul(oi, i64(s)), i64(pd)) for oi, s, pd in zip(o, stride, pad)
        ]
        acc = k.alloca(llvm_type(wide), _pool_init(wide, kind))
        count = k.alloca(I64, i64(0))
        with loop_nest(k.b, list(kern), name="w") as w:
            pos = [
                k.b.add(st, k.b.mul(wi, i64(d))) for st, wi, d in zip(starts, w, dil)
            ]
            ok = _in_bounds(k.b, pos[0], ins[0])
            for q, size in zip(pos[1:], ins[1:]):
                ok = k.b.and_(ok, _in_bounds(k.b, q, size))
            with k.b.if_then(ok):
                v = k.load(k.inp(0), linear_offset(k.b, [*p, *pos], in_st), dtype)
                cur = k.b.load(acc)
                if kind == "max":
                    better = _greater(k.b, v, cur, dtype)
                    k.b.store(k.b.select(better, v, cur), acc)
                else:
                    v = emit_cast(k.b, v, dtype, wide)
                    add = k.b.fadd if wide.is_float else k.b.add
                    k.b.store(add(cur, v), acc)
                k.b.store(k.b.add(k.b.load(count), i64(1)), count)
        result = k.b.load(acc)
        if kind == "avg":
            div = _avg_divisor(k, op, starts, ins, count)
            result = _divide(k.b, result, div, wide)
        k.store(
            emit_cast(k.b, result, wide, dtype),
            k.out(),
            linear_offset(k.b, idx, out_st),
            dtype,
        )


def _accumulator(dtype: DType) -> DType:
    """What an average pool sums in: float for half floats, int64 for integers (torch's
    accumulate types), the dtype itself otherwise."""
    if dtype in (DType.f16, DType.bf16):
        return DType.f32
    return dtype if dtype.is_float else DType.i64


def _divide(
    b: ir.IRBuilder, total: ir.Value, divisor: ir.Value, acc: DType
) -> ir.Value:
    """total / divisor (an i64): integer averages truncate toward zero, as torch's."""
    if not acc.is_float:
        return b.sdiv(total, divisor)
    return b.fdiv(total, b.sitofp(divisor, llvm_type(acc)))


def _avg_divisor(k: Kernel, op: Operation, starts, ins, count) -> ir.Value:
    """The divisor of one window (an i64)."""
    a = op.attrs
    if a.get("divisor_override"):
        return i64(int(a["divisor_override"]))
    if not a["count_include_pad"]:
        return k.b.load(count)
    # torch counts the window clipped to the padded input (not to the input)
    size = i64(1)
    for st, kk, n, pd in zip(starts, a["kernel"], ins, a["padding"]):
        end = _min(k.b, k.b.add(st, i64(kk)), i64(n + pd))
        size = k.b.mul(size, k.b.sub(end, st))
    return size


def _min(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.select(b.icmp_signed("<", x, y), x, y)


def emit_adaptive_avg_pool(k: Kernel, op: Operation) -> None:
    """Window i covers [floor(i*L/O), ceil((i+1)*L/O)) in each spatial dim."""
    layouts = (k.in_type(0).layout, k.out_type.layout)
    if layouts == ("nhwc", "nhwc") and k.out_type.rank == 4:
        _adaptive_avg_pool_nhwc(k)
        return
    if any(lay != "contiguous" for lay in layouts):
        raise CodegenError(
            f"{op.name}: layouts {layouts} are not supported (contiguous, or nhwc for "
            "2-d pooling); relayout the input to contiguous first"
        )
    planes, ins, outs = _spatial(k, op)
    dtype = k.in_type(0).dtype
    in_st, out_st = (
        contiguous_strides([planes, *ins]),
        contiguous_strides([planes, *outs]),
    )
    with loop_nest(k.b, [planes, *outs], name="o") as idx:
        p, o = idx[0], idx[1:]
        bounds = []
        for oi, size, osz in zip(o, ins, outs):
            start = k.b.sdiv(k.b.mul(oi, i64(size)), i64(osz))
            end = k.b.sdiv(
                k.b.add(k.b.mul(k.b.add(oi, i64(1)), i64(size)), i64(osz - 1)), i64(osz)
            )
            bounds.append((start, end))
        wide = _accumulator(dtype)  # half floats sum in float, as ATen
        acc = k.alloca(llvm_type(wide), const(wide, 0.0))
        _window_sum(k, dtype, acc, p, bounds, in_st, [])
        area = i64(1)
        for start, end in bounds:
            area = k.b.mul(area, k.b.sub(end, start))
        mean = _divide(k.b, k.b.load(acc), area, wide)
        k.store(
            emit_cast(k.b, mean, wide, dtype),
            k.out(),
            linear_offset(k.b, idx, out_st),
            dtype,
        )


def _adaptive_avg_pool_nhwc(k: Kernel) -> None:
    """Channels last (SE blocks' squeeze, global pooling in an NHWC region): per output
    position, the window's input rows are added into the output row, channels
    innermost (contiguous: LLVM vectorizes it), then divided by the window's area."""
    ti, to = k.in_type(0), k.out_type
    n, c, h, w = ti.shape
    oh, ow = to.shape[2:]
    b, dtype = k.b, ti.dtype
    with loop_nest(b, [n, oh, ow], name="o") as (nb, i, j):
        bounds = [
            (
                b.sdiv(b.mul(o, i64(size)), i64(osz)),
                b.sdiv(
                    b.add(b.mul(b.add(o, i64(1)), i64(size)), i64(osz - 1)), i64(osz)
                ),
            )
            for o, size, osz in ((i, h, oh), (j, w, ow))
        ]
        row = b.mul(b.add(b.mul(b.add(b.mul(nb, i64(oh)), i), i64(ow)), j), i64(c))
        with for_range(b, c, name="z") as ch:
            k.store(const(dtype, 0.0), k.out(), b.add(row, ch), dtype)
        (h0, h1), (w0, w1) = bounds
        with (  # rolled: unrolled window rows cost LLVM 0.2 s and no speed
            for_range(b, h1, start=h0, name="y", unroll=False) as y,
            for_range(b, w1, start=w0, name="x", unroll=False) as x,
        ):
            src = b.mul(b.add(b.mul(b.add(b.mul(nb, i64(h)), y), i64(w)), x), i64(c))
            with for_range(b, c, name="c") as ch:
                at = b.add(row, ch)
                s = b.fadd(
                    k.load(k.out(), at, dtype), k.load(k.inp(0), b.add(src, ch), dtype)
                )
                k.store(s, k.out(), at, dtype)
        area = b.sitofp(b.mul(b.sub(h1, h0), b.sub(w1, w0)), llvm_type(dtype))
        with for_range(b, c, name="d") as ch:
            at = b.add(row, ch)
            k.store(b.fdiv(k.load(k.out(), at, dtype), area), k.out(), at, dtype)


def _window_sum(k: Kernel, dtype, acc, p, bounds, in_st, pos) -> None:
    if len(pos) == len(bounds):
        v = k.load(k.inp(0), linear_offset(k.b, [p, *pos], in_st), dtype)
        v = emit_cast(k.b, v, dtype, DType.f32) if v.type != acc.allocated_type else v
        k.b.store(k.b.fadd(k.b.load(acc), v, flags=("reassoc", "contract")), acc)
        return
    start, end = bounds[len(pos)]
    with for_range(k.b, end, start=start, name=f"a{len(pos)}") as i:
        _window_sum(k, dtype, acc, p, bounds, in_st, [*pos, i])


def emit_embedding(k: Kernel, op: Operation) -> None:
    w, idx_t = k.in_type(0), k.in_type(1)
    dim = w.shape[1]
    check_all(k, 1, w.shape[0], 0, wrap=False)
    with for_range(k.b, idx_t.numel(), name="t") as t:
        raw = k.load(k.inp(1), t, idx_t.dtype)
        row = checked_index(k, raw, w.shape[0], 0, check=False)
        base_in, base_out = k.b.mul(row, i64(dim)), k.b.mul(t, i64(dim))
        with for_range(k.b, dim, name="c") as c:
            v = k.load(k.inp(0), k.b.add(base_in, c), w.dtype)
            k.store(v, k.out(), k.b.add(base_out, c), w.dtype)
