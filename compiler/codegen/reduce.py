"""Reduction kernels (sum, mean, amax, amin, prod, var, argmax) and row-wise kernels built on
them (softmax, log_softmax, layer_norm).

Float accumulations use `reassoc` so LLVM can vectorize the inner loop; results stay within
the documented float32 tolerance of torch (which also reorders its sums).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from llvmlite import ir

from ..errors import CodegenError
from ..ir.core import Operation
from ..ir.types import DType
from .kernel import Kernel, contiguous_strides
from .loops import I64, for_range, i64, linear_offset, loop_nest
from .pointwise import Access, _collapse
from .scalar import const, emit_cast, exp, llvm_type
from .scalar_unsigned import icmp, int_range

__all__ = ["emit_reduce", "emit_argmax", "emit_softmax", "emit_layer_norm"]

FAST = ("reassoc", "contract")


def _split(shape: Sequence[int], dims: Sequence[int]):
    """(outer dims, outer strides, inner dims, inner strides) of a contiguous input."""
    strides = contiguous_strides(shape)
    kept = [d for d in range(len(shape)) if d not in dims]
    out_strides = contiguous_strides([shape[d] for d in kept])
    outer, (in_o, out_o) = _collapse(
        [shape[d] for d in kept], [_acc([strides[d] for d in kept]), _acc(out_strides)]
    )
    inner, (in_i,) = _collapse(
        [shape[d] for d in dims], [_acc([strides[d] for d in dims])]
    )
    return outer, in_o, out_o, inner, in_i


def _acc(strides) -> Access:
    return Access(0, tuple(strides))


def _combine(
    b: ir.IRBuilder, kind: str, acc: ir.Value, v: ir.Value, dtype: DType
) -> ir.Value:
    is_f = isinstance(v.type, (ir.FloatType, ir.DoubleType, ir.HalfType))
    if kind in ("sum", "mean", "var"):
        return b.fadd(acc, v, flags=FAST) if is_f else b.add(acc, v)
    if kind == "prod":
        return b.fmul(acc, v, flags=FAST) if is_f else b.mul(acc, v)
    op = ">" if kind == "amax" else "<"
    if is_f:
        better = b.or_(b.fcmp_ordered(op, v, acc), b.fcmp_unordered("uno", v, v))
    else:
        better = icmp(b, op, v, acc, dtype)
    return b.select(better, v, acc)


def _init(kind: str, dtype: DType) -> ir.Constant:
    if kind in ("sum", "mean", "var"):
        return const(dtype, 0)
    if kind == "prod":
        return const(dtype, 1)
    if dtype.is_float:
        return const(dtype, float("-inf") if kind == "amax" else float("inf"))
    lo, hi = int_range(dtype)
    return ir.Constant(llvm_type(dtype), lo if kind == "amax" else hi)


def _inner_reduce(
    k: Kernel, kind: str, ptr, base, inner, in_i, dtype: DType, center=None, acc=None
):
    """Reduce the `inner` elements at `base`; with `acc` (a wider float type) each
    element is widened and the accumulation runs in that type."""
    acc = acc or dtype
    slot = k.alloca(llvm_type(acc), _init(kind, acc))
    with loop_nest(k.b, inner, name="r") as r:
        v = k.load(ptr, k.b.add(base, linear_offset(k.b, r, in_i)), dtype)
        if v.type != llvm_type(acc):
            v = k.b.fpext(v, llvm_type(acc))
        if center is not None:
            d = k.b.fsub(v, center)
            v = k.b.fmul(d, d)
        k.b.store(_combine(k.b, kind, k.b.load(slot), v, dtype), slot)
    return k.b.load(slot)


_HALVES = (DType.f16, DType.bf16)


def emit_reduce(k: Kernel, op: Operation, kind: str) -> None:
    t = k.in_type(0)
    shape, dims, dtype = t.shape, op.attrs["dims"], t.dtype
    if not dims:  # nothing to reduce; a sum still starts from +0 (-0.0 gives +0.0)
        return _copy(k, t, kind in ("sum", "mean") and t.dtype.is_float)
    outer, in_o, out_o, inner, in_i = _split(shape, dims)
    # half floats add and multiply in float, as torch's kernels do (opmath)
    wide = DType.f32 if dtype in _HALVES and kind in ("sum", "mean", "prod") else None
    n = 1
    for d in dims:
        n *= shape[d]
    with loop_nest(k.b, outer, name="o") as o:
        base = linear_offset(k.b, o, in_o)
        if kind == "var" and dtype.is_float:
            acc = _var(k, op, base, inner, in_i, dtype, n)
        else:
            acc = _inner_reduce(k, kind, k.inp(0), base, inner, in_i, dtype, acc=wide)
        if kind == "mean":
            at = wide or dtype
            acc = k.b.fmul(acc, const(at, 1.0 / n) if n else const(at, float("nan")))
        if wide is not None:  # rounded once, as torch's float accumulation
            acc = emit_cast(k.b, acc, wide, dtype)
        k.store(acc, k.out(), linear_offset(k.b, o, out_o), dtype)


def _var(k: Kernel, op: Operation, base, inner, in_i, dtype: DType, n: int):
    """Two passes (mean, then squared deviations) in float64, as torch accumulates a
    float32 variance: eight 1e38s have variance 0, not inf (their float32 sum overflows).
    With ``sqrt`` (std) the root is taken in float64 too."""
    wide = DType.f64
    total = _inner_reduce(k, "sum", k.inp(0), base, inner, in_i, dtype, acc=wide)
    mean = k.b.fdiv(total, const(wide, float(n)))  # a division: exact on a constant row
    sq = _inner_reduce(
        k, "sum", k.inp(0), base, inner, in_i, dtype, center=mean, acc=wide
    )
    denom = n - op.attrs["correction"]
    var = k.b.fmul(
        sq, const(wide, 1.0 / denom) if denom > 0 else const(wide, float("nan"))
    )
    if op.attrs.get("sqrt", False):  # std: the root before rounding, as torch
        root = k.fn.module.declare_intrinsic("llvm.sqrt", [llvm_type(wide)])
        var = k.b.call(root, [var])
    return var if dtype is wide else k.b.fptrunc(var, llvm_type(dtype))


def _copy(k: Kernel, t, plus_zero: bool) -> None:
    n = t.numel()
    with for_range(k.b, n) as i:
        v = k.load(k.inp(0), i, t.dtype)
        v = k.b.fadd(v, const(t.dtype, 0.0)) if plus_zero else v
        k.store(v, k.out(), i, t.dtype)


def emit_argmax(k: Kernel, op: Operation) -> None:
    t = k.in_type(0)
    outer, in_o, out_o, inner, in_i = _split(t.shape, (op.attrs["dim"],))
    dtype = t.dtype
    with loop_nest(k.b, outer, name="o") as o:
        base = linear_offset(k.b, o, in_o)
        best = k.alloca(llvm_type(dtype), _init("amax", dtype))
        best_i = k.alloca(I64, i64(0))
        with loop_nest(k.b, inner, name="r") as r:
            v = k.load(k.inp(0), k.b.add(base, linear_offset(k.b, r, in_i)), dtype)
            cur = k.b.load(best)
            if dtype.is_float:
                is_new = k.b.or_(
                    k.b.fcmp_ordered(">", v, cur),
                    k.b.and_(
                        k.b.fcmp_unordered("uno", v, v),
                        k.b.fcmp_ordered("ord", cur, cur),
                    ),
                )
            else:
                is_new = icmp(k.b, ">", v, cur, dtype)
            k.b.store(k.b.select(is_new, v, cur), best)
            k.b.store(k.b.select(is_new, _flat(k, r, inner), k.b.load(best_i)), best_i)
        k.store(k.b.load(best_i), k.out(), linear_offset(k.b, o, out_o), DType.i64)


def _flat(k: Kernel, idx, dims) -> ir.Value:
    return linear_offset(k.b, idx, contiguous_strides(dims))


def _rows(shape: Sequence[int], dim: int) -> tuple[int, int, int]:
    """(outer, n, inner) sizes around `dim`."""
    outer = inner = 1
    for d in shape[:dim]:
        outer *= d
    for d in shape[dim + 1 :]:
        inner *= d
    return outer, shape[dim], inner


def emit_softmax(k: Kernel, op: Operation, log: bool = False) -> None:
    t = k.in_type(0)
    dtype = t.dtype
    if not dtype.is_float:
        raise CodegenError("softmax of a non-float tensor")
    outer, n, inner = _rows(t.shape, op.attrs["dim"])
    log_fn = k.fn.module.declare_intrinsic("llvm.log", [llvm_type(dtype)])
    with loop_nest(k.b, [outer, inner], name="o") as (o, j):
        base = k.b.add(k.b.mul(o, i64(n * inner)), j)
        row = (base, [n], [inner])
        mx = _inner_reduce(k, "amax", k.inp(0), row[0], row[1], row[2], dtype)
        total = k.alloca(llvm_type(dtype), const(dtype, 0))
        with for_range(k.b, n, name="s") as i:
            off = k.b.add(base, k.b.mul(i, i64(inner)))
            e = exp(k.b, k.b.fsub(k.load(k.inp(0), off, dtype), mx))
            k.b.store(k.b.fadd(k.b.load(total), e, flags=FAST), total)
            if not log:
                k.store(e, k.out(), off, dtype)
        s = k.b.load(total)
        scale = k.b.fdiv(const(dtype, 1.0), s)
        log_s = k.b.call(log_fn, [s]) if log else None
        with for_range(k.b, n, name="w") as i:
            off = k.b.add(base, k.b.mul(i, i64(inner)))
            if log:  # (x - max) - log(sum): max + log(sum) first absorbs log n at 1e8
                centered = k.b.fsub(k.load(k.inp(0), off, dtype), mx)
                k.store(k.b.fsub(centered, log_s), k.out(), off, dtype)
            else:
                k.store(
                    k.b.fmul(k.load(k.out(), off, dtype), scale), k.out(), off, dtype
                )


def emit_layer_norm(k: Kernel, op: Operation) -> None:
    t = k.in_type(0)
    dtype = t.dtype
    n = 1
    for d in op.attrs["normalized_shape"]:
        n *= d
    rows = (t.numel() // n) if n else 0
    has_w, has_b = len(op.operands) > 1, len(op.operands) > 2
    with for_range(k.b, rows, name="row") as r:
        base = k.b.mul(r, i64(n))
        hi, lo, rstd = _row_moments(k, base, n, dtype, op.attrs["eps"])
        with for_range(k.b, n, name="c") as c:
            off = k.b.add(base, c)
            x = k.load(k.inp(0), off, dtype)
            y = k.b.fmul(k.b.fsub(k.b.fsub(x, hi), lo), rstd)
            if has_w:
                y = k.b.fmul(y, k.load(k.inp(1), c, dtype))
            # torch adds its bias (+0 without one), so a zero result is +0, never -0
            bias = k.load(k.inp(2), c, dtype) if has_b else const(dtype, 0.0)
            k.store(k.b.fadd(y, bias), k.out(), off, dtype)


F64 = DType.f64


def _row_moments(k: Kernel, base, n: int, dtype: DType, eps: float):
    """(hi, lo, 1/sqrt(var + eps)) in `dtype` for the `n` elements at `base`: the mean
    summed in float64 and divided, as hi + lo, so (x - hi) - lo centres the row at it
    (x - hi is exact near the mean). A constant row's mean was an ulp off (a float32
    sum times 1/n), and rstd = 1/sqrt(eps) ~ 316 magnified it (fuzz seed 7001144); rows
    near -1e4 were centred at a mean rounded to a 1e-3 grid (7001128). The squares are
    summed in `dtype`, vectorized (in float64 they made layer_norm 1.45x slower)."""
    nn = float(n)
    total = _inner_reduce(k, "sum", k.inp(0), base, [n], [1], dtype, acc=F64)
    mean = k.b.fdiv(_overflowing(k, total, dtype), const(F64, nn))
    if dtype is F64:
        hi, lo = mean, const(F64, 0.0)
    else:
        hi = k.b.fptrunc(mean, llvm_type(dtype))
        rest = k.b.fsub(mean, k.b.fpext(hi, llvm_type(F64)))
        lo = k.b.fptrunc(rest, llvm_type(dtype))
    sq = _inner_reduce(k, "sum", k.inp(0), base, [n], [1], dtype, center=hi)
    sqrt = k.fn.module.declare_intrinsic("llvm.sqrt", [llvm_type(dtype)])
    var = k.b.fdiv(sq, const(dtype, nn))
    root = k.b.call(sqrt, [k.b.fadd(var, const(dtype, eps))])
    return hi, lo, k.b.fdiv(const(dtype, 1.0), root)


def _overflowing(k: Kernel, v, dtype: DType):
    """`v` (float64), or the infinity it is in `dtype` when it is past that type's
    range: torch accumulates a float row in float, so a sum of 1e38s is inf there and
    the row NaN (tests/codegen/test_numeric_edges.py holds Cuvil to that)."""
    if dtype is F64:
        return v
    narrow = k.b.fpext(k.b.fptrunc(v, llvm_type(dtype)), llvm_type(F64))
    inf = const(F64, math.inf)
    past = k.b.fcmp_ordered("==", k.b.call(_fabs(k), [narrow]), inf)
    return k.b.select(past, narrow, v)


def _fabs(k: Kernel):
    return k.fn.module.declare_intrinsic("llvm.fabs", [llvm_type(F64)])
