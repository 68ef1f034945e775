"""Lowering rules for indexing with tensors: ``x[i, j]`` / ``aten.index``, index_put and
``x[...] = v``, gather, scatter / scatter_add (scatter_reduce: lower_scatter.py), index_select, slice_scatter and
select_scatter.

Index tensors computed at run time become ``cuvil.index`` / ``cuvil.index_put``. Writes
through basic indices known at compile time (slice_scatter and select_scatter: what
export makes of ``x[:, 1:] = y``) are an index_put of the flat positions they select,
computed here once (torch.fx cannot trace item assignment at all). A boolean mask computed
at run time selects a data-dependent number of elements: refused (a compile-time mask
is turned into its positions).
"""

from __future__ import annotations

import operator

import torch

from ..errors import UnsupportedOpError
from ..ir import ops
from ..ir.core import Value
from ..ir.ops.indexing import index_shape
from ..ir.types import DType, broadcast_shapes
from .context import LazyTensor, LoweringContext
from .lower_shape import _dim, _getitem, _select, reshape, slice_dim, unsqueeze
from .registry import aten, lowers

__all__ = ["index", "index_put"]

_TENSORISH = (Value, LazyTensor, torch.Tensor, list)


def _unsupported(cx: LoweringContext, what: str, hint: str | None = None):
    return UnsupportedOpError(what, node=cx.node_name, where=cx.where(), hint=hint)


def _known_data(cx: LoweringContext, item):
    """The compile-time data of an index (a constant, a param or buffer), else item."""
    if isinstance(item, LazyTensor):
        return item.data
    owner = item.owner if isinstance(item, Value) else None
    if isinstance(owner, ops.ConstantOp):
        return owner.attrs["value"]
    if isinstance(owner, ops.ParamOp):
        return cx.module.param_data.get(owner.symbol(), item)
    return item


def _index_value(cx: LoweringContext, item) -> list[Value]:
    """The index tensor(s) an item stands for: an int tensor is one; a compile-time bool
    mask is one per dim it covers (its nonzero positions)."""
    if isinstance(item, list):
        item = torch.tensor(item)
    data = _known_data(cx, item)
    if isinstance(data, torch.Tensor) and data.dtype is torch.bool:
        return [cx.value(t) for t in data.nonzero(as_tuple=True)]
    v = cx.value(item)
    if v.type.dtype is DType.i1 or v.type.dtype is DType.u8:
        raise _unsupported(
            cx,
            "indexing with a boolean mask computed at run time",
            hint="the result's shape depends on the mask's values; use "
            "torch.where(mask, x, other) or masked_fill to keep static shapes",
        )
    if v.type.dtype not in (DType.i64, DType.i32):
        raise _unsupported(cx, f"an index tensor of element type {v.type.dtype}")
    return [v]


def index(cx: LoweringContext, x, indices) -> Value:
    """``x[indices]`` with `indices` one entry per leading dim (None: the whole dim)."""
    v = cx.value(x)
    dims, idx, d = [], [], 0
    for item in indices:
        if item is None:
            d += 1
            continue
        vals = _index_value(cx, item)
        dims += range(d, d + len(vals))
        idx += vals
        d += len(vals)
    if d > v.type.rank:
        raise _unsupported(cx, f"{d} indices for a tensor of rank {v.type.rank}")
    if not idx:
        return v
    return cx.emit(ops.IndexOp, v, *idx, dims=tuple(dims))


@lowers(aten.index)
def _aten_index(cx: LoweringContext, x, indices):
    return index(cx, x, list(indices))


def _expand_ellipsis(items: tuple, rank: int) -> tuple:
    real = sum(1 for i in items if i is not None and i is not Ellipsis)
    if Ellipsis not in items:
        return items
    at = items.index(Ellipsis)
    return items[:at] + (slice(None),) * (rank - real) + items[at + 1 :]


@lowers(operator.getitem)
def _getitem_tensors(cx: LoweringContext, obj, item):
    """Basic items as lower_shape does them (ints select, slices, None), tensor items
    recorded at their dim of the result, then one cuvil.index (torch's order)."""
    if isinstance(obj, LazyTensor):  # a weight (torch.compile: self.pos[:, :n])
        obj = cx.value(obj)
    items = item if isinstance(item, tuple) else (item,)
    if not isinstance(obj, Value) or not any(isinstance(i, _TENSORISH) for i in items):
        return _getitem(cx, obj, item)
    cur, d, adv = obj, 0, []
    for it in _expand_ellipsis(items, obj.type.rank):
        if it is None:
            cur, d = unsqueeze(cx, cur, d), d + 1
        elif isinstance(it, slice):
            cur = slice_dim(cx, cur, d, it.start, it.stop, it.step or 1)
            d += 1
        elif isinstance(it, int):
            cur = _select(cx, cur, d, it)
        else:
            adv.append((d, it))
            d += 1
    full: list = [None] * (adv[-1][0] + 1)
    for at, it in adv:
        full[at] = it
    return index(cx, cur, full)


# ---- writes -------------------------------------------------------------------------------
def _fit(cx: LoweringContext, values, like: Value, target: tuple) -> Value:
    """`values` as a tensor of like's element type that broadcasts to `target`."""
    dtype = like.type.dtype
    v = cx.value(values, dtype)
    if v.type.dtype is not dtype:
        v = cx.cast(v, dtype)
    shape = tuple(v.type.shape)
    while len(shape) > len(target) and shape[0] == 1:
        shape = shape[1:]
    return reshape(cx, v, shape) if shape != tuple(v.type.shape) else v


def index_put(cx: LoweringContext, x, indices, values, accumulate=False) -> Value:
    v = cx.value(x)
    masked = _masked_fill(cx, v, indices, values, accumulate)
    if masked is not None:
        return masked
    dims, idx, d = [], [], 0
    for item in indices:
        if item is not None:
            vals = _mask_or_index(cx, item, v, d)
            dims += range(d, d + len(vals))
            idx += vals
            d += len(vals)
        else:
            d += 1
    if not idx:
        return _write_region(cx, v, (), values, accumulate)
    bshape = broadcast_shapes(*(i.type.shape for i in idx))
    if bshape is None:
        raise _unsupported(cx, "index tensors whose shapes do not broadcast")
    target = index_shape(v.type.shape, dims, bshape)
    vals = _fit(cx, values, v, target)
    return cx.emit(
        ops.IndexPutOp, v, vals, *idx, dims=tuple(dims), accumulate=bool(accumulate)
    )


def _masked_fill(cx: LoweringContext, x: Value, indices, values, accumulate):
    """``x[mask] = scalar`` with a run-time mask over x's leading dims: a where (the
    number of selected elements does not matter when one value fills them all)."""
    if len(indices) != 1 or not isinstance(indices[0], Value):
        return None
    m = indices[0]
    if m.type.dtype is not DType.i1:
        return None
    vals = cx.value(values, x.type.dtype)
    lead = tuple(x.type.shape[: m.type.rank])
    if tuple(m.type.shape) != lead or vals.type.numel() != 1:
        raise _unsupported(
            cx,
            "index_put through a boolean mask computed at run time with "
            f"mask {m.type} and values {vals.type} on {x.type}",
            hint="a mask over x's leading dims with one value works; else use "
            "torch.where(mask, value, x)",
        )
    if vals.type.dtype is not x.type.dtype:
        vals = cx.cast(vals, x.type.dtype)
    vals = reshape(cx, vals, ())
    cond = reshape(cx, m, lead + (1,) * (x.type.rank - m.type.rank))
    if accumulate:
        zero = cx.scalar(0, x.type.dtype)
        return cx.op("cuvil.add", x, cx.op("cuvil.where", cond, vals, zero))
    return cx.op("cuvil.where", cond, vals, x)


def _mask_or_index(cx: LoweringContext, item, x: Value, d: int) -> list[Value]:
    if isinstance(item, Value) and item.type.dtype is DType.i1:
        raise _unsupported(
            cx,
            "index_put through a boolean mask computed at run time",
            hint="use torch.where(mask, value, x) or x.masked_fill(mask, value)",
        )
    return _index_value(cx, item)


@lowers(aten.index_put, torch.index_put, "index_put")
def _index_put(cx: LoweringContext, x, indices, values, accumulate=False):
    return index_put(cx, x, list(indices), values, accumulate)


def _positions(x: Value) -> torch.Tensor:
    return torch.arange(x.type.numel(), dtype=torch.int64).view(tuple(x.type.shape))


def _write_region(cx: LoweringContext, x: Value, item, values, accumulate=False):
    """``x[item] = values`` for an item known at compile time: an index_put of the flat
    positions ``positions(x)[item]`` into x viewed as 1-d."""
    if not x.type.is_static:
        raise _unsupported(cx, "writing into a tensor of symbolic shape")
    pos = _positions(x)[item]
    return _put_flat(cx, x, pos, values, accumulate)


def _put_flat(cx: LoweringContext, x: Value, pos: torch.Tensor, values, acc=False):
    flat = reshape(cx, x, (x.type.numel(),))
    vals = _fit(cx, values, x, tuple(pos.shape))
    out = cx.emit(
        ops.IndexPutOp, flat, vals, cx.constant(pos), dims=(0,), accumulate=bool(acc)
    )
    return reshape(cx, out, tuple(x.type.shape))


@lowers(aten.slice_scatter, torch.slice_scatter, "slice_scatter")
def _slice_scatter(cx, x, src, dim=0, start=None, end=None, step=1):
    v = cx.value(x)
    d = _dim(dim, v.type.rank)
    if not v.type.is_static:
        raise _unsupported(cx, "slice_scatter into a tensor of symbolic shape")
    pos = _positions(v).narrow(d, 0, v.type.shape[d])
    pos = pos[(slice(None),) * d + (slice(start, end, step),)]
    return _put_flat(cx, v, pos, src)


@lowers(aten.select_scatter, torch.select_scatter, "select_scatter")
def _select_scatter(cx: LoweringContext, x, src, dim, index):
    v = cx.value(x)
    d = _dim(dim, v.type.rank)
    if not v.type.is_static:
        raise _unsupported(cx, "select_scatter into a tensor of symbolic shape")
    return _put_flat(cx, v, _positions(v).select(d, index), src)


# ---- gather / scatter / index_select --------------------------------------------------------
def _int_index(cx: LoweringContext, index) -> Value:
    v = cx.value(index)
    if v.type.dtype not in (DType.i64, DType.i32):
        raise _unsupported(cx, f"an index tensor of element type {v.type.dtype}")
    return v


@lowers(torch.gather, "gather", aten.gather)
def _gather(cx: LoweringContext, x, dim, index, *, sparse_grad=False, out=None):
    if out is not None:
        raise _unsupported(cx, "gather with out=")
    v, i = cx.value(x), _int_index(cx, index)
    if _zero_d(
        v, i
    ):  # torch reads a 0-d tensor as [1]; the result is the index's shape
        out = cx.emit(ops.GatherOp, _as_1d(cx, v), _as_1d(cx, i), dim=_dim(dim, 1))
        return reshape(cx, out, i.type.shape)
    if v.type.rank == 0 or i.type.rank != v.type.rank:
        raise _unsupported(cx, f"gather of {v.type} by {i.type} (ranks must match)")
    return cx.emit(ops.GatherOp, v, i, dim=_dim(dim, v.type.rank))


def _zero_d(v: Value, i: Value) -> bool:
    """A 0-d operand beside a 0-d or 1-d one: the forms torch takes as 1-d."""
    return min(v.type.rank, i.type.rank) == 0 and max(v.type.rank, i.type.rank) <= 1


def _as_1d(cx: LoweringContext, v: Value) -> Value:
    return reshape(cx, v, (1,)) if v.type.rank == 0 else v


def _scatter(cx: LoweringContext, x, dim, index, src, reduce: str) -> Value:
    v, i = cx.value(x), _int_index(cx, index)
    if _zero_d(v, i):  # as 1-d tensors; the result has x's shape
        if (
            isinstance(src, Value | LazyTensor | torch.Tensor)
            and cx.value(src).type.rank == 0
        ):
            src = _as_1d(cx, cx.value(src))
        out = _scatter(cx, _as_1d(cx, v), _dim(dim, 1), _as_1d(cx, i), src, reduce)
        return reshape(cx, out, v.type.shape)
    if v.type.rank == 0 or i.type.rank != v.type.rank:
        raise _unsupported(cx, f"scatter into {v.type} by {i.type} (ranks must match)")
    if isinstance(src, (bool, int, float)):
        s = reshape(cx, cx.scalar(src, v.type.dtype), (1,) * v.type.rank)
        src = cx.emit(ops.ExpandOp, s, shape=tuple(i.type.shape))
    s = cx.value(src)
    if s.type.rank == 0:  # torch reads a 0-d src as [1, ..., 1] (an index of ones)
        s = reshape(cx, s, (1,) * v.type.rank)
    half = reduce != "none" and v.type.dtype in (DType.f16, DType.bf16)
    if half:  # torch combines half floats in float32 and rounds once (fuzz 7022725)
        v = cx.cast(v, DType.f32)
    if s.type.dtype is not v.type.dtype:
        s = cx.cast(s, v.type.dtype)
    out = cx.emit(ops.ScatterOp, v, i, s, dim=_dim(dim, v.type.rank), reduce=reduce)
    return cx.cast(out, cx.value(x).type.dtype) if half else out


@lowers(torch.scatter, "scatter", aten.scatter)
def _scatter_rule(cx, x, dim, index, src=None, value=None, reduce=None, **kw):
    if kw:
        raise _unsupported(cx, f"scatter with {', '.join(sorted(kw))}=")
    legacy = {None: "none", "add": "add", "multiply": "mul"}  # scatter's own reduce=
    if reduce not in legacy:
        raise _unsupported(
            cx,
            f"scatter with reduce={reduce!r}",
            hint="scatter takes reduce='add' or 'multiply'; see scatter_reduce",
        )
    return _scatter(
        cx, x, dim, index, src if src is not None else value, legacy[reduce]
    )


@lowers(torch.scatter_add, "scatter_add", aten.scatter_add)
def _scatter_add(cx: LoweringContext, x, dim, index, src):
    return _scatter(cx, x, dim, index, src, "add")


@lowers(torch.index_select, "index_select", aten.index_select)
def _index_select(cx: LoweringContext, x, dim, index, *, out=None):
    if out is not None:
        raise _unsupported(cx, "index_select with out=")
    v, i = cx.value(x), _int_index(cx, index)
    if i.type.rank > 1:
        raise _unsupported(cx, f"index_select with a {i.type.rank}-d index")
    i = _as_1d(cx, i)
    if v.type.rank == 0:  # a 0-d tensor is indexed as [1]; the result is 0-d again
        picked = cx.emit(ops.IndexOp, _as_1d(cx, v), i, dims=(0,), wrap=False)
        return reshape(cx, picked, ())
    d = _dim(dim, v.type.rank)
    return cx.emit(ops.IndexOp, v, i, dims=(d,), wrap=False)  # no negatives
