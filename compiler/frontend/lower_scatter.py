"""Lowering rules for scatters that combine: scatter_reduce (sum, prod, mean, amax, amin,
with or without the destination's own values), masked_scatter, embedding_bag, and the
index_put-shaped index_add, index_copy and one_hot (which refuse out-of-range classes).

All are built from ``cuvil.scatter`` (whose ``reduce`` combines duplicates), ``cuvil.index``
and elementwise ops. ``include_self=False`` first writes the reduction's identity at the
positions an index reaches, then combines into it; ``mean`` divides by a count scattered
the same way (floor division on integers, as torch).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ..ir import ops
from ..ir.core import Value
from ..ir.types import DType, broadcast_shapes
from .context import LoweringContext
from .lower_index import _int_index, _scatter, _unsupported
from .lower_shape import _dim, reshape, slice_dim
from .registry import aten, lowers, named

_COMBINE = {"sum": "add", "mean": "add", "prod": "mul", "amax": "max", "amin": "min"}


def full(cx: LoweringContext, value, shape, dtype: DType) -> Value:
    """A tensor of `shape` filled with the Python number `value` (a broadcast scalar)."""
    one = reshape(cx, cx.scalar(value, dtype), (1,) * len(shape))
    return cx.emit(ops.ExpandOp, one, shape=tuple(shape)) if shape else one


def _identity(reduce: str, dtype: DType):
    if reduce in ("sum", "mean"):
        return False if dtype is DType.i1 else 0
    if reduce == "prod":
        return True if dtype is DType.i1 else 1
    big = math.inf if dtype.is_float else torch.iinfo(dtype.torch).max
    small = -math.inf if dtype.is_float else torch.iinfo(dtype.torch).min
    return small if reduce == "amax" else big


@lowers(torch.scatter_reduce, "scatter_reduce", aten.scatter_reduce)
def _scatter_reduce(cx, x, dim, index, src, reduce, *, include_self=True, out=None):
    v = cx.value(x)
    if out is not None:
        raise _unsupported(cx, "scatter_reduce with out=")
    if reduce not in _COMBINE:
        raise _unsupported(cx, f"scatter_reduce(reduce={reduce!r})")
    if v.type.dtype is DType.i1:
        raise _unsupported(cx, "scatter_reduce of a bool tensor")
    d = _dim(dim, max(v.type.rank, 1))
    base = v
    if not include_self:  # the identity where an index lands, then the combination
        base = _scatter(cx, v, d, index, _identity(reduce, v.type.dtype), "none")
    total = _scatter(cx, base, d, index, src, _COMBINE[reduce])
    if reduce != "mean":
        return total
    count = full(cx, 1, v.type.shape, v.type.dtype)
    if not include_self:
        count = _scatter(cx, count, d, index, 0, "none")
    count = _scatter(cx, count, d, index, 1, "add")
    name = "cuvil.div" if v.type.dtype.is_float else "cuvil.floor_divide"
    return cx.op(name, total, count)


@lowers(torch.masked_scatter, "masked_scatter", aten.masked_scatter)
def _masked_scatter(cx: LoweringContext, x, mask, source):
    """out[mask] = source's first mask.sum() elements in row-major order: the k-th true
    position takes source.flatten()[k] (k from a cumsum of the mask)."""
    v, m, s = cx.value(x), cx.value(mask), cx.value(source)
    if m.type.dtype is not DType.i1:
        raise _unsupported(
            cx, f"masked_scatter with a {m.type.dtype} mask (bool needed)"
        )
    shape = broadcast_shapes(v.type.shape, m.type.shape)
    if shape is None or not all(isinstance(n, int) for n in (*shape, *s.type.shape)):
        raise _unsupported(cx, f"masked_scatter of {v.type} by {m.type}")
    numel = math.prod(s.type.shape)
    if numel == 0:
        raise _unsupported(cx, "masked_scatter from an empty source")
    n = math.prod(shape)
    flat_m = reshape(cx, cx.emit(ops.ExpandOp, m, shape=tuple(shape)), (n,))
    flat_v = reshape(cx, cx.emit(ops.ExpandOp, v, shape=tuple(shape)), (n,))
    k = cx.emit(ops.CumsumOp, cx.cast(flat_m, DType.i64), dim=0)
    k = cx.emit(ops.ClampOp, cx.op("cuvil.sub", k, cx.scalar(1, DType.i64)), min=0)
    picked = cx.emit(ops.IndexOp, reshape(cx, s, (numel,)), k, dims=(0,), wrap=False)
    picked = cx.cast(picked, v.type.dtype)
    return reshape(cx, cx.emit(ops.WhereOp, flat_m, picked, flat_v), tuple(shape))


# ---- embedding_bag -------------------------------------------------------------------------
_MODES = {0: "sum", 1: "mean", 2: "max", "sum": "sum", "mean": "mean", "max": "max"}


def _bags(cx: LoweringContext, idx: Value, offsets, include_last: bool):
    """(flat indices, bag of each index, number of bags); an index no bag takes (before
    offsets[0], after the last offset with include_last_offset) gets bag -1 or nb."""
    if idx.type.rank == 2 and offsets is None:  # a bag per row
        b, n = idx.type.shape
        bag = torch.arange(b).repeat_interleave(n)
        return reshape(cx, idx, (b * n,)), cx.constant(bag), b
    if idx.type.rank == 2:  # the ATen op with offsets reads the indices flattened
        idx = reshape(cx, idx, (idx.type.numel(),))
    off = cx.value(offsets)
    if off.type.rank != 1 or off.type.dtype.is_float:
        raise _unsupported(cx, f"embedding_bag offsets of type {off.type}")
    k, n = off.type.shape[0], idx.type.shape[0]
    starts = reshape(cx, off, (1, k))
    pos = cx.constant(torch.arange(n).reshape(n, 1))
    covered = cx.cast(cx.op("cuvil.le", cx.cast(starts, DType.i64), pos), DType.i64)
    bag = cx.emit(ops.REDUCE_OPS["cuvil.sum"], covered, dims=(1,), keepdim=False)
    return idx, cx.op("cuvil.sub", bag, cx.scalar(1, DType.i64)), k - int(include_last)


def embedding_bag(
    cx, weight, indices, offsets, mode, per_sample_weights, include_last, padding_idx
):
    """Rows of `weight` reduced per bag: a scatter of the looked-up rows into one row per
    bag (and a spare row for indices no bag takes); mean divides by the bag's count,
    empty bags give zeros, as torch."""
    w, idx = cx.value(weight), cx.value(indices)
    mode = _MODES.get(mode)
    if mode is None or idx.type.rank not in (1, 2) or not idx.type.numel():
        raise _unsupported(cx, f"embedding_bag(mode={mode!r}) of indices {idx.type}")
    if per_sample_weights is not None and mode != "sum":
        raise _unsupported(cx, "per_sample_weights with a mode other than 'sum'")
    flat, bag, nb = _bags(cx, idx, offsets, include_last)
    n, d = flat.type.shape[0], w.type.shape[1]
    i64 = DType.i64
    valid = cx.op(
        "cuvil.logical_and",
        cx.op("cuvil.ge", bag, cx.scalar(0, i64)),
        cx.op("cuvil.lt", bag, cx.scalar(nb, i64)),
    )
    if padding_idx is not None and padding_idx >= 0:
        keep = cx.op("cuvil.ne", cx.cast(flat, i64), cx.scalar(padding_idx, i64))
        valid = cx.op("cuvil.logical_and", valid, keep)
    bag = cx.emit(ops.WhereOp, valid, bag, cx.scalar(nb, i64))
    rows = cx.emit(ops.EmbeddingOp, w, flat)
    if per_sample_weights is not None:
        scale = reshape(cx, cx.cast(cx.value(per_sample_weights), w.type.dtype), (n, 1))
        rows = cx.op("cuvil.mul", rows, scale)
    fill = -math.inf if mode == "max" else 0.0
    looked_up = rows
    if mode == "max":  # NaN never wins a comparison: only a bag's first row keeps it
        rows = cx.emit(
            ops.WhereOp, _not_nan(cx, rows), rows, cx.scalar(fill, w.type.dtype)
        )
    rows = cx.emit(
        ops.WhereOp, reshape(cx, valid, (n, 1)), rows, cx.scalar(fill, w.type.dtype)
    )
    where_to = cx.emit(ops.ExpandOp, reshape(cx, bag, (n, 1)), shape=(n, d))
    base = full(cx, fill, (nb + 1, d), w.type.dtype)
    out = _scatter(cx, base, 0, where_to, rows, "max" if mode == "max" else "add")
    out = slice_dim(cx, out, 0, 0, nb)
    if mode == "max":
        out = _first_nan_sticks(cx, out, looked_up, valid, bag, nb)
    if mode == "sum":
        return out
    ones = cx.cast(valid, w.type.dtype)
    count = _scatter(cx, full(cx, 0.0, (nb + 1,), w.type.dtype), 0, bag, ones, "add")
    count = reshape(cx, slice_dim(cx, count, 0, 0, nb), (nb, 1))
    if mode == "mean":
        return cx.op("cuvil.div", out, cx.emit(ops.ClampOp, count, min=1.0))
    zero = cx.scalar(0.0, w.type.dtype)
    return cx.emit(ops.WhereOp, cx.op("cuvil.gt", count, zero), out, zero)


def _not_nan(cx: LoweringContext, v: Value) -> Value:
    return cx.op("cuvil.logical_not", cx.emit(ops.MATH_UNARY["cuvil.isnan"], v))


def _first_nan_sticks(cx, out: Value, rows: Value, valid: Value, bag: Value, nb: int):
    """torch's max bag starts from its first row and takes a larger one: a NaN there
    stays, a NaN later is skipped. `out` is the max without NaNs; where a bag's first
    row has a NaN, that NaN."""
    n, i64 = rows.type.shape[0], DType.i64
    pos = cx.emit(
        ops.WhereOp, valid, cx.constant(torch.arange(n)), cx.scalar(n - 1, i64)
    )
    first = _scatter(cx, full(cx, n - 1, (nb + 1,), i64), 0, bag, pos, "min")
    first_rows = cx.emit(
        ops.IndexOp, rows, slice_dim(cx, first, 0, 0, nb), dims=(0,), wrap=False
    )
    return cx.emit(ops.WhereOp, _not_nan(cx, first_rows), out, first_rows)


@lowers(F.embedding_bag)
def _f_embedding_bag(
    cx,
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    if max_norm is not None:
        raise _unsupported(cx, "embedding_bag with max_norm (it renormalizes weights)")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += cx.value(weight).type.shape[0]
    return embedding_bag(
        cx,
        weight,
        input,
        offsets,
        mode,
        per_sample_weights,
        include_last_offset,
        padding_idx,
    )


def _aten_embedding_bag(negative_padding: str):
    """(output, offset2bag, bag_size, max_indices): the last three feed backward only;
    a graph that reads them is refused where it reads them. `negative_padding`: what a
    negative padding_idx means ("none" for _embedding_bag's -1, "wrap" for the
    ``embedding_bag.padding_idx`` overload, as F.embedding_bag counts from the end)."""

    @named(f"embedding_bag[{negative_padding}]")
    def rule(
        cx,
        weight,
        indices,
        offsets,
        scale_grad_by_freq=False,
        mode=0,
        sparse=False,
        per_sample_weights=None,
        include_last_offset=False,
        padding_idx=None,
    ):
        if padding_idx is not None and padding_idx < 0:
            rows = cx.value(weight).type.shape[0]
            padding_idx = None if negative_padding == "none" else padding_idx + rows
        out = embedding_bag(
            cx,
            weight,
            indices,
            offsets,
            mode,
            per_sample_weights,
            include_last_offset,
            padding_idx,
        )
        return out, None, None, None

    return rule


lowers(
    aten._embedding_bag, aten._embedding_bag_forward_only, aten.embedding_bag.default
)(_aten_embedding_bag("none"))
lowers(aten.embedding_bag.padding_idx)(_aten_embedding_bag("wrap"))


# ---- index_add / index_copy / one_hot -------------------------------------------------------
def _along_dim(cx, x, dim, index, source, accumulate: bool, alpha=1, wrap=False):
    """``x.index_add(dim, index, source)`` (accumulate) or ``index_copy``: an index_put
    at `dim` that refuses negative indices as torch does (its decomposition wraps);
    index_fill, which torch lets count from the end, passes `wrap`."""
    v, i = cx.value(x), cx.value(index)
    if i.type.dtype not in (DType.i64, DType.i32) or i.type.rank > 1:
        raise _unsupported(cx, f"an index of {i.type} (a 1-d i64 or i32 tensor)")
    i = reshape(cx, i, (1,)) if i.type.rank == 0 else i
    d = _dim(dim, v.type.rank)
    target = list(v.type.shape)
    if target:
        target[d] = i.type.shape[0]
    s = cx.cast(cx.value(source, v.type.dtype), v.type.dtype)
    if alpha != 1:
        s = cx.op("cuvil.mul", s, cx.scalar(alpha, v.type.dtype))
    if s.type.numel() == 1:
        s = reshape(cx, s, ())
    elif tuple(s.type.shape) != tuple(target):
        s = reshape(cx, s, target)
    if v.type.rank == 0:
        picked = _along_dim(cx, reshape(cx, v, (1,)), 0, i, s, accumulate, wrap=wrap)
        return reshape(cx, picked, ())
    return cx.emit(ops.IndexPutOp, v, s, i, dims=(d,), accumulate=accumulate, wrap=wrap)


@lowers(torch.index_add, "index_add", aten.index_add)
def _index_add(cx: LoweringContext, x, dim, index, source, *, alpha=1, out=None):
    if out is not None:
        raise _unsupported(cx, "index_add with out=")
    return _along_dim(cx, x, dim, index, source, True, alpha)


@lowers(torch.index_copy, "index_copy", aten.index_copy)
def _index_copy(cx: LoweringContext, x, dim, index, source, *, out=None):
    if out is not None:
        raise _unsupported(cx, "index_copy with out=")
    return _along_dim(cx, x, dim, index, source, False)


@lowers(torch.index_fill, "index_fill", aten.index_fill)
def _index_fill(cx: LoweringContext, x, dim, index, value):
    return _along_dim(cx, x, dim, index, value, False, wrap=True)


@lowers(F.one_hot, aten.one_hot)
def _one_hot(cx: LoweringContext, tensor, num_classes=-1):
    """A scatter of ones into zeros: its index check refuses a class outside
    [0, num_classes) as torch does (an equality with arange gave a zero row)."""
    i = cx.value(tensor)
    if i.type.dtype is not DType.i64:
        raise _unsupported(cx, f"one_hot of {i.type} (torch takes an i64 tensor)")
    if not isinstance(num_classes, int) or num_classes < 0:
        raise _unsupported(
            cx,
            "one_hot without num_classes (its shape depends on the values)",
            hint="pass num_classes=N",
        )
    shape = (*i.type.shape, num_classes)
    zeros = full(cx, 0, shape, DType.i64)
    at = reshape(cx, i, (*i.type.shape, 1))
    return _scatter(cx, zeros, len(shape) - 1, at, 1, "none")


def _max_unpool(spatial: int):
    """max_unpool{2,3}d: a scatter of each plane's values to their flat positions in the
    output plane, whose index check refuses a position outside it (torch's
    decomposition adds a plane offset first, so one went to a neighbour plane)."""

    @named(f"max_unpool{spatial}d")
    def rule(cx: LoweringContext, x, indices, output_size, *_):
        v, i = cx.value(x), _int_index(cx, indices)
        if (
            v.type.rank not in (spatial + 1, spatial + 2)
            or i.type.shape != v.type.shape
        ):
            raise _unsupported(cx, f"max_unpool{spatial}d of {v.type} by {i.type}")
        lead, plane = tuple(v.type.shape[:-spatial]), math.prod(v.type.shape[-spatial:])
        size = tuple(int(s) for s in output_size)
        zeros = full(cx, 0, (*lead, math.prod(size)), v.type.dtype)
        vals, at = (reshape(cx, t, (*lead, plane)) for t in (v, i))
        out = _scatter(cx, zeros, len(lead), at, vals, "none")
        return reshape(cx, out, (*lead, *size))

    return rule


lowers(aten.max_unpool2d, torch._C._nn.max_unpool2d)(_max_unpool(2))
lowers(aten.max_unpool3d, torch._C._nn.max_unpool3d)(_max_unpool(3))
