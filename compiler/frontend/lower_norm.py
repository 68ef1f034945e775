"""Lowering rules built from reductions: vector norms, all/any, nansum/nanmean,
var_mean/std_mean, count_nonzero, aminmax."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ..errors import UnsupportedOpError
from ..ir import ops
from ..ir.core import Value
from ..ir.types import DType
from .context import LoweringContext, refuse_extra
from .lower_math import _as_bool, emit_bin, to_dtype
from .lower_reduce import _std, _var, norm_dims
from .lower_shape import reshape, slice_dim
from .registry import aten, lowers

_FLOAT = DType.from_torch(torch.get_default_dtype())


def _sum(cx: LoweringContext, v: Value, dims, keepdim) -> Value:
    return cx.emit(ops.REDUCE_OPS["cuvil.sum"], v, dims=dims, keepdim=bool(keepdim))


def _float(cx: LoweringContext, x, dtype=None) -> Value:
    v = cx.value(x)
    if dtype is not None:
        return to_dtype(cx, v, dtype)
    return v if v.type.dtype.is_float else cx.cast(v, _FLOAT)


@lowers(torch.linalg.vector_norm, aten.linalg_vector_norm)
def _vector_norm(cx: LoweringContext, x, ord=2, dim=None, keepdim=False, *, dtype=None):
    v = _float(cx, x, dtype)
    if v.type.dtype in (DType.f16, DType.bf16):  # in float, rounded once (opmath)
        out = _vector_norm(cx, cx.cast(v, DType.f32), ord, dim, keepdim)
        return cx.cast(out, v.type.dtype)
    dims = norm_dims(v.type.rank, dim)
    if ord in (math.inf, -math.inf):
        if any(v.type.shape[d] == 0 for d in dims):
            raise UnsupportedOpError(
                "vector_norm(ord=inf) over an empty dimension",
                node=cx.node_name,
                where=cx.where(),
                hint="torch raises here too: the maximum of no values is undefined",
            )
        name = "cuvil.amax" if ord > 0 else "cuvil.amin"
        absx = cx.op("cuvil.abs", v)
        return cx.emit(ops.REDUCE_OPS[name], absx, dims=dims, keepdim=bool(keepdim))
    if not isinstance(ord, int | float):
        raise UnsupportedOpError(
            f"vector_norm(ord={ord!r})", node=cx.node_name, where=cx.where()
        )
    if ord == 0:  # the number of nonzero entries
        nz = cx.cast(cx.op("cuvil.ne", v, cx.scalar(0, v.type.dtype)), v.type.dtype)
        return _sum(cx, nz, dims, keepdim)
    if all(v.type.shape[d] == 1 for d in dims):  # one value: |x|, as eager (no pow)
        return _sum(cx, cx.op("cuvil.abs", v), dims, keepdim)
    if ord == 2:
        return cx.op("cuvil.sqrt", _sum(cx, cx.op("cuvil.mul", v, v), dims, keepdim))
    absx = cx.op("cuvil.abs", v)
    if ord == 1:
        return _sum(cx, absx, dims, keepdim)
    powered = emit_bin(cx, "cuvil.pow", absx, float(ord))
    return emit_bin(cx, "cuvil.pow", _sum(cx, powered, dims, keepdim), 1.0 / ord)


@lowers(torch.norm, "norm", aten.norm)
def _norm(cx: LoweringContext, x, p="fro", dim=None, keepdim=False, dtype=None, **kw):
    refuse_extra(cx, "torch.norm", kw)
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str):
        raise UnsupportedOpError(
            f"torch.norm(p={p!r})",
            node=cx.node_name,
            where=cx.where(),
            hint="vector norms (p a number, or 'fro') are supported",
        )
    return _vector_norm(cx, x, p, dim, keepdim, dtype=dtype)


def _bool_count(cx: LoweringContext, x, negate: bool, dim, keepdim) -> Value:
    v = cx.value(x)
    b = (
        v
        if v.type.dtype is DType.i1
        else cx.op("cuvil.ne", v, cx.scalar(0, v.type.dtype))
    )
    if negate:
        b = cx.op("cuvil.logical_not", b)
    return _sum(cx, cx.cast(b, DType.i64), norm_dims(v.type.rank, dim), keepdim)


def _dims_arg(dim):
    return None if dim is None else dim


@lowers(torch.any, "any", aten.any)
def _any(cx: LoweringContext, x, dim=None, keepdim=False):
    if isinstance(dim, list | tuple) and not dim:  # aten.any.dims(x, []): no reduction
        return _like_input(cx, x, _as_bool(cx, x))
    count = _bool_count(cx, x, False, _dims_arg(dim), keepdim)
    return _like_input(cx, x, cx.op("cuvil.gt", count, cx.scalar(0, DType.i64)))


def _like_input(cx: LoweringContext, x, result: Value) -> Value:
    """torch's any/all of a uint8 tensor is uint8 (0/1), of anything else bool."""
    return cx.cast(result, DType.u8) if cx.value(x).type.dtype is DType.u8 else result


@lowers(torch.all, "all", aten.all)
def _all(cx: LoweringContext, x, dim=None, keepdim=False):
    if isinstance(dim, list | tuple) and not dim:  # aten.all.dims(x, []): no reduction
        return _like_input(cx, x, _as_bool(cx, x))
    count = _bool_count(cx, x, True, _dims_arg(dim), keepdim)
    return _like_input(cx, x, cx.op("cuvil.eq", count, cx.scalar(0, DType.i64)))


@lowers(torch.count_nonzero, "count_nonzero", aten.count_nonzero)
def _count_nonzero(cx: LoweringContext, x, dim=None):
    return _bool_count(cx, x, False, dim, False)


def _not_nan(cx: LoweringContext, v: Value) -> Value:
    return cx.op("cuvil.logical_not", cx.emit(ops.MATH_UNARY["cuvil.isnan"], v))


@lowers(torch.nansum, "nansum", aten.nansum)
def _nansum(cx: LoweringContext, x, dim=None, keepdim=False, *, dtype=None):
    v = cx.value(x)
    if dtype is not None and v.type.dtype.is_float:  # NaNs count as 0 before any cast
        v = cx.emit(ops.WhereOp, _not_nan(cx, v), v, cx.scalar(0.0, v.type.dtype))
    v = v if dtype is None else to_dtype(cx, v, dtype)
    if not v.type.dtype.is_float:
        int_to = DType.i64 if dtype is None else v.type.dtype
        wide = DType.i64 if int_to is DType.i1 else int_to  # booleans add saturating
        total = _sum(cx, cx.cast(v, wide), norm_dims(v.type.rank, dim), keepdim)
        return cx.cast(total, int_to)
    zero = cx.scalar(0.0, v.type.dtype)
    clean = cx.emit(ops.WhereOp, _not_nan(cx, v), v, zero)
    return _sum(cx, clean, norm_dims(v.type.rank, dim), keepdim)


@lowers(torch.nanmean, "nanmean", aten.nanmean)
def _nanmean(cx: LoweringContext, x, dim=None, keepdim=False, *, dtype=None):
    v = _float(cx, x, dtype)
    total = _nansum(cx, v, dim, keepdim)
    dims = norm_dims(v.type.rank, dim)
    count = _sum(cx, cx.cast(_not_nan(cx, v), v.type.dtype), dims, keepdim)
    return cx.op("cuvil.div", total, count)


@lowers(torch.var_mean, aten.var_mean)
def _var_mean(cx: LoweringContext, x, *args, **kwargs):
    return _var(cx, x, *args, **kwargs), _mean_like_var(cx, x, *args, **kwargs)


@lowers(torch.std_mean, aten.std_mean)
def _std_mean(cx: LoweringContext, x, *args, **kwargs):
    return _std(cx, x, *args, **kwargs), _mean_like_var(cx, x, *args, **kwargs)


def _mean_like_var(cx: LoweringContext, x, dim=None, unbiased=None, keepdim=False, **_):
    if isinstance(dim, bool):  # var_mean(x, unbiased)
        dim = None
    v = cx.value(x)
    dims = norm_dims(v.type.rank, dim)
    # the mean of torch's var_mean comes from its variance's accumulation: float64
    # for float32 (a float32 sum of large values overflows), float for half floats
    wide = {DType.f32: DType.f64, DType.f16: DType.f32, DType.bf16: DType.f32}.get(
        v.type.dtype
    )
    src = cx.cast(v, wide) if wide else v
    mean = cx.emit(ops.REDUCE_OPS["cuvil.mean"], src, dims=dims, keepdim=True)
    mean = _running_mean_at_infinities(cx, src, mean, dims)
    if not keepdim:
        mean = reshape(
            cx, mean, [n for d, n in enumerate(v.type.shape) if d not in dims]
        )
    return cx.cast(mean, v.type.dtype) if wide else mean


def _running_mean_at_infinities(cx: LoweringContext, v: Value, mean, dims) -> Value:
    """`mean` (keepdim) as torch's var_mean/std_mean gives it. Its CPU kernel updates a
    running (Welford) mean element by element, serially, in index order of the reduced
    dims (the last read is the one at the largest indices, whatever the strides): after
    an infinity the next element gives inf - inf, so the mean is +-inf only where the
    row's one non-finite element is an infinity read last, NaN where it holds another
    (the sum's mean is +-inf for any lone infinity: fuzz seeds 7000690, 7000736)."""
    if not dims or any(v.type.shape[d] == 0 for d in dims):
        return mean
    dtype = v.type.dtype
    finite = cx.op("cuvil.lt", cx.op("cuvil.abs", v), cx.scalar(math.inf, dtype))
    bad = cx.cast(cx.op("cuvil.logical_not", finite), DType.i64)
    count = cx.emit(ops.REDUCE_OPS["cuvil.sum"], bad, dims=dims, keepdim=True)
    last = v
    for d in dims:
        n = v.type.shape[d]
        last = slice_dim(cx, last, d, n - 1, n)
    last_inf = cx.emit(ops.MATH_UNARY["cuvil.isinf"], last)
    lone = cx.op("cuvil.eq", count, cx.scalar(1, DType.i64))
    none = cx.op("cuvil.eq", count, cx.scalar(0, DType.i64))
    ok = cx.op("cuvil.logical_or", none, cx.op("cuvil.logical_and", lone, last_inf))
    return cx.emit(ops.WhereOp, ok, mean, cx.scalar(math.nan, dtype))


@lowers(torch.aminmax, aten.aminmax)
def _aminmax(cx: LoweringContext, x, *, dim=None, keepdim=False):
    v = cx.value(x)
    dims = norm_dims(v.type.rank, dim)
    lo = cx.emit(ops.REDUCE_OPS["cuvil.amin"], v, dims=dims, keepdim=bool(keepdim))
    hi = cx.emit(ops.REDUCE_OPS["cuvil.amax"], v, dims=dims, keepdim=bool(keepdim))
    return lo, hi


# ---- distances -----------------------------------------------------------------------------
def _pairwise_norm(
    cx: LoweringContext, diff: Value, p, skip_nan: bool = False
) -> Value:
    """torch's cdist/pdist kernels: p=0 sums min(ceil(|d|), 1) (a NaN difference gives
    NaN); p=inf is the largest |d|, cdist's (`skip_nan`) the largest that is not NaN (0
    if none); others as norms."""
    if not isinstance(p, int | float) or p < 0:
        raise UnsupportedOpError(
            f"a p-norm distance with p={p!r}", node=cx.node_name, where=cx.where()
        )
    dtype = diff.type.dtype
    last = (diff.type.rank - 1,)
    if p == 0:
        ones = cx.op(
            "cuvil.minimum",
            cx.op("cuvil.ceil", cx.op("cuvil.abs", diff)),
            cx.scalar(1.0, dtype),
        )
        return _sum(cx, ones, last, False)
    if p == math.inf and skip_nan:
        absd = cx.op("cuvil.abs", diff)
        absd = cx.emit(ops.WhereOp, _not_nan(cx, absd), absd, cx.scalar(0.0, dtype))
        return cx.emit(ops.REDUCE_OPS["cuvil.amax"], absd, dims=last, keepdim=False)
    return _vector_norm(cx, diff, float(p), -1)


@lowers(torch.cdist, aten._cdist_forward, aten.cdist)
def _cdist(cx: LoweringContext, x1, x2, p=2.0, compute_mode=None):
    """[..., P, M] x [..., R, M] -> [..., P, R]: the norm of every difference (computed
    directly; torch's matmul shortcut for p=2 is an accuracy trade Cuvil does not make)."""
    a, b = _float(cx, x1), _float(cx, x2)
    if a.type.rank < 2 or b.type.rank < 2:
        raise UnsupportedOpError(
            f"cdist of {a.type} and {b.type} (rank 2 or more)",
            node=cx.node_name,
            where=cx.where(),
        )
    a = reshape(cx, a, (*a.type.shape[:-1], 1, a.type.shape[-1]))
    b = reshape(cx, b, (*b.type.shape[:-2], 1, *b.type.shape[-2:]))
    _, (a, b) = cx.promote(a, b)
    return _pairwise_norm(cx, cx.op("cuvil.sub", a, b), p, skip_nan=True)


@lowers(F.pdist, aten._pdist_forward)
def _pdist(cx: LoweringContext, x, p=2.0):
    """[N, M] -> [N(N-1)/2]: the distance of rows i < j, in row-major (i, j) order."""
    v = _float(cx, x)
    if v.type.rank != 2 or not isinstance(v.type.shape[0], int):
        raise UnsupportedOpError(
            f"pdist of {v.type} (rank 2)", node=cx.node_name, where=cx.where()
        )
    i, j = torch.triu_indices(v.type.shape[0], v.type.shape[0], 1)
    if i.numel() == 0:
        return cx.constant(torch.empty(0, dtype=v.type.dtype.torch))
    rows = [
        cx.emit(ops.IndexOp, v, cx.constant(t), dims=(0,), wrap=False) for t in (i, j)
    ]
    return _pairwise_norm(cx, cx.op("cuvil.sub", *rows), p)
