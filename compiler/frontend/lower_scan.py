"""Lowering rules for scans (cumsum, cumprod) and orderings (sort, argsort, topk).

A scan of a bool or integer input computes in int64, as torch does; ``dtype=`` casts
the input first. sort and topk give two results (values, indices), each its own
``cuvil.topk`` op, so a result nobody reads is removed as dead code.
"""

from __future__ import annotations

import torch

from ..errors import UnsupportedOpError
from ..ir import ops
from ..ir.core import Value
from ..ir.types import DType
from .context import LoweringContext, cuvil_dtype
from .lower_nn import _unsupported
from .registry import aten, lowers, named

__all__ = ["topk"]


def _dim(cx: LoweringContext, v: Value, dim) -> int:
    rank = v.type.rank
    if not -max(rank, 1) <= int(dim) < max(rank, 1):
        raise _unsupported(cx, f"dim {dim} of a rank-{rank} tensor")
    return int(dim) % rank if rank else 0


def _scan(cls):
    @named(f"scan[{cls.name}]")
    def rule(cx: LoweringContext, x, dim, *, dtype=None):
        v = cx.value(x)
        if dtype is not None:
            v = cx.cast(v, cuvil_dtype(dtype))
        elif not v.type.dtype.is_float:
            v = cx.cast(v, DType.i64)
        if (
            v.type.dtype is DType.i1
        ):  # dtype=torch.bool: torch runs it only on one element
            if v.type.numel() == 1:
                return v
            raise UnsupportedOpError(
                f"{cls.name} in bool", node=cx.node_name, where=cx.where()
            )
        return cx.emit(cls, v, dim=_dim(cx, v, dim))

    return rule


lowers(torch.cumsum, "cumsum", aten.cumsum)(_scan(ops.CumsumOp))
lowers(torch.cumprod, "cumprod", aten.cumprod)(_scan(ops.CumprodOp))


def _running(cls):
    """cummax/cummin: (values, indices); the index is the last position at or before i
    where the running extreme was reached (a NaN reaches it, as in torch): the running
    maximum of the positions whose element equals the running value there."""

    @named(f"running[{cls.name}]")
    def rule(cx: LoweringContext, x, dim):
        v = cx.value(x)
        if v.type.dtype is DType.i1:
            v = cx.cast(v, DType.i64)
        d = _dim(cx, v, dim)
        values = cx.emit(cls, v, dim=d)
        n = v.type.shape[d] if v.type.rank else 1
        if not isinstance(n, int):
            raise _unsupported(cx, f"{cls.name} along a dim of symbolic size")
        shape = [1] * v.type.rank
        if v.type.rank:
            shape[d] = n
        pos = cx.constant(torch.arange(n).reshape(shape))
        hit = cx.op("cuvil.eq", v, values)
        if v.type.dtype.is_float:
            hit = cx.op("cuvil.logical_or", hit, cx.op("cuvil.isnan", v))
        marks = cx.emit(ops.WhereOp, hit, pos, cx.scalar(-1, DType.i64))
        indices = cx.emit(ops.CummaxOp, marks, dim=d)
        result = getattr(
            torch.return_types, cls.name.split(".")[1]
        )  # .values, .indices
        return result((cx.cast(values, cx.value(x).type.dtype), indices))

    return rule


lowers(torch.cummax, "cummax", aten.cummax)(_running(ops.CummaxOp))
lowers(torch.cummin, "cummin", aten.cummin)(_running(ops.CumminOp))


def topk(cx: LoweringContext, v: Value, k: int, dim: int, largest: bool):
    """(values, indices) of the k first elements along dim in the stable order."""
    if v.type.rank and not isinstance(v.type.shape[dim], int):
        raise _unsupported(cx, f"sort/topk along a dim of symbolic size ({v.type})")
    values = cx.emit(ops.TopkOp, v, dim=dim, k=k, largest=largest)
    indices = cx.emit(ops.TopkOp, v, dim=dim, k=k, largest=largest, indices=True)
    return values, indices


def _size(v: Value, dim: int) -> int:
    return v.type.shape[dim] if v.type.rank else 1


@lowers(torch.sort, "sort", aten.sort)
def _sort(cx: LoweringContext, x, dim=-1, descending=False, *, stable=None):
    # always stable: a valid order for stable=False too
    v = cx.value(x)
    d = _dim(cx, v, dim)
    return topk(cx, v, _size(v, d), d, bool(descending))


@lowers(torch.argsort, "argsort", aten.argsort)
def _argsort(cx: LoweringContext, x, dim=-1, descending=False, *, stable=False):
    v = cx.value(x)
    d = _dim(cx, v, dim)
    return topk(cx, v, _size(v, d), d, bool(descending))[1]


@lowers(torch.topk, "topk", aten.topk)
def _topk(cx: LoweringContext, x, k, dim=-1, largest=True, sorted=True):
    v = cx.value(x)
    d = _dim(cx, v, dim)
    if not isinstance(k, int):
        raise _unsupported(cx, f"topk with a k computed at run time ({k})")
    # sorted=False leaves the order to the implementation: the sorted order is one
    return topk(cx, v, int(k), d, bool(largest))
