"""Kernels along one dim: inclusive scans (cumsum/cumprod/cummax/cummin) and the stable
topk/sort.

A scan walks each row along ``dim`` once; float rows accumulate in double as torch's CPU
kernel does (``acc_type`` of float is double), integers in their own type (wrapping).
topk ranks every element of a row by counting the elements that precede it in the
stable order (larger first for ``largest``, NaN above everything, ties by position) and
writes the element at its rank when that rank is below k: O(n^2) per row, no scratch.
"""

from __future__ import annotations

import math

from llvmlite import ir

from ..ir.core import Operation
from ..ir.types import DType, TensorType
from .kernel import Kernel
from .loops import I64, for_range, i64
from .scalar import binary, const
from .scalar_unsigned import icmp, int_range

__all__ = ["emit_cum", "emit_topk"]

F64 = ir.DoubleType()


def _rows(t: TensorType, dim: int) -> tuple[int, int, int]:
    """(outer, n, inner): the elements before, along and after `dim`."""
    if t.rank == 0:
        return 1, 1, 1
    outer = inner = 1
    for d in t.shape[:dim]:
        outer *= d
    for d in t.shape[dim + 1 :]:
        inner *= d
    return outer, t.shape[dim], inner


def _cum_start(kind: str, dtype: DType, acc_t: ir.Type) -> ir.Constant:
    if kind in ("sum", "prod"):
        return ir.Constant(
            acc_t, (0 if kind == "sum" else 1) * (1.0 if dtype.is_float else 1)
        )
    if dtype.is_float:
        return ir.Constant(acc_t, -math.inf if kind == "max" else math.inf)
    lo, hi = int_range(dtype)
    return ir.Constant(acc_t, lo if kind == "max" else hi)


def _cum_step(
    b: ir.IRBuilder, kind: str, cur: ir.Value, x: ir.Value, dtype: DType
) -> ir.Value:
    if kind in ("max", "min") and dtype.is_float:
        # torch's cummax/cummin: x replaces the running value when it is NaN, or when
        # neither is NaN and x >= (<=) it: a tie takes the later element (+0 after -0)
        cmp = b.fcmp_ordered(">=" if kind == "max" else "<=", x, cur)
        take = b.or_(
            b.fcmp_unordered("uno", x, x), b.and_(b.fcmp_ordered("ord", cur, cur), cmp)
        )
        return b.select(take, x, cur)
    name = {"sum": "cuvil.add", "prod": "cuvil.mul", "max": "cuvil.maximum"}
    return binary(name.get(kind, "cuvil.minimum"), dtype)(b, cur, x)


def emit_cum(k: Kernel, op: Operation, kind: str) -> None:
    """An inclusive scan (kind: sum, prod, max, min); float sums and products accumulate
    in double, as torch's CPU kernels do."""
    t = k.in_type(0)
    dtype = t.dtype
    outer, n, inner = _rows(t, op.attrs["dim"])
    wide = dtype.is_float
    acc_t = F64 if wide else const(dtype, 0).type
    init = _cum_start(kind, dtype, acc_t)
    with for_range(k.b, outer, name="o") as o, for_range(k.b, inner, name="i") as i:
        base = k.b.add(k.b.mul(o, i64(n * inner)), i)
        acc = k.alloca(acc_t, init)
        with for_range(k.b, n, name="j") as j:
            off = k.b.add(base, k.b.mul(j, i64(inner)))
            x = k.load(k.inp(0), off, dtype)
            if wide and x.type != F64:
                x = k.b.fpext(x, F64)
            nxt = _cum_step(k.b, kind, k.b.load(acc), x, dtype)
            k.b.store(nxt, acc)
            if wide and dtype is not DType.f64:
                nxt = k.b.fptrunc(nxt, const(dtype, 0.0).type)
            k.store(nxt, k.out(), off, dtype)


def _greater(b: ir.IRBuilder, x, y, dtype: DType) -> ir.Value:
    """x above y in torch's order (NaN above every number)."""
    if dtype.is_float:
        nan_x = b.and_(b.fcmp_unordered("uno", x, x), b.fcmp_ordered("ord", y, y))
        return b.or_(b.fcmp_ordered(">", x, y), nan_x)
    return icmp(b, ">", x, y, dtype)


def _equal(b: ir.IRBuilder, x, y, dtype: DType) -> ir.Value:
    if dtype.is_float:
        both_nan = b.and_(b.fcmp_unordered("uno", x, x), b.fcmp_unordered("uno", y, y))
        return b.or_(b.fcmp_ordered("==", x, y), both_nan)
    return b.icmp_unsigned("==", x, y)


def emit_topk(k: Kernel, op: Operation) -> None:
    t = k.in_type(0)
    dtype, a = t.dtype, op.attrs
    outer, n, inner = _rows(t, a["dim"])
    kk, b = a["k"], k.b
    with for_range(b, outer, name="o") as o, for_range(b, inner, name="i") as i:
        base = b.add(b.mul(o, i64(n * inner)), i)
        out_base = b.add(b.mul(o, i64(kk * inner)), i)
        with for_range(b, n, name="m") as m:
            xm = k.load(k.inp(0), b.add(base, b.mul(m, i64(inner))), dtype)
            rank = k.alloca(I64, i64(0))
            with for_range(b, n, name="q") as q:
                xq = k.load(k.inp(0), b.add(base, b.mul(q, i64(inner))), dtype)
                hi, lo = (xq, xm) if a["largest"] else (xm, xq)
                tie = b.and_(_equal(b, xq, xm, dtype), b.icmp_signed("<", q, m))
                before = b.or_(_greater(b, hi, lo, dtype), tie)
                b.store(b.add(b.load(rank), b.zext(before, I64)), rank)
            r = b.load(rank)
            with b.if_then(b.icmp_signed("<", r, i64(kk))):
                off = b.add(out_base, b.mul(r, i64(inner)))
                if a["indices"]:
                    k.store(m, k.out(), off, DType.i64)
                else:
                    k.store(xm, k.out(), off, dtype)
