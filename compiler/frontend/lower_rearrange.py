"""Lowering rules that rearrange elements with the shape ops (slice, cat, expand,
reshape, permute): roll, repeat/tile, diagonal/trace/diag, and the ``*_copy`` aten forms
of view ops (functionalized graphs write ``aten.view_copy`` for ``aten.view``)."""

from __future__ import annotations

import torch

from ..errors import UnsupportedOpError
from ..ir import ops
from ..ir.core import Value
from ..ir.types import DType
from .context import LoweringContext
from .inplace import eager_layout
from .lower_shape import reshape, slice_dim
from .registry import aten, lookup, lowers


def _ints(args: tuple) -> tuple[int, ...]:
    if len(args) == 1 and isinstance(args[0], list | tuple | torch.Size):
        return tuple(args[0])
    return tuple(args)


@lowers(torch.roll, "roll", aten.roll)
def _roll(cx: LoweringContext, x, shifts, dims=None):
    v = cx.value(x)
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if dims is None or (isinstance(dims, list | tuple) and not dims):
        flat = reshape(cx, v, (-1,))
        return reshape(cx, _roll(cx, flat, shifts, (0,)), v.type.shape)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    for s, d in zip(shifts, dims, strict=True):
        d %= v.type.rank
        n = v.type.shape[d]
        if not isinstance(n, int):
            raise UnsupportedOpError(
                "roll along a symbolic dimension", node=cx.node_name, where=cx.where()
            )
        s = s % n if n else 0
        if s:
            tail, head = slice_dim(cx, v, d, n - s, n), slice_dim(cx, v, d, 0, n - s)
            v = cx.emit(ops.CatOp, tail, head, dim=d)
    return v


@lowers("repeat", aten.repeat)
def _repeat(cx: LoweringContext, x, *sizes):
    v = cx.value(x)
    reps = _ints(sizes)
    if len(reps) < v.type.rank:
        raise UnsupportedOpError(
            f"repeat({list(reps)}) with fewer sizes than the tensor's {v.type.rank} dims",
            node=cx.node_name,
            where=cx.where(),
        )
    shape = (1,) * (len(reps) - v.type.rank) + tuple(v.type.shape)
    spread = reshape(cx, v, tuple(x for s in shape for x in (1, s)))
    big = cx.emit(
        ops.ExpandOp,
        spread,
        shape=tuple(x for r, s in zip(reps, shape) for x in (r, s)),
    )
    return reshape(cx, big, tuple(r * s for r, s in zip(reps, shape)))


@lowers(torch.tile, "tile", aten.tile)
def _tile(cx: LoweringContext, x, *dims):
    v = cx.value(x)
    reps = _ints(dims)
    reps = (1,) * (v.type.rank - len(reps)) + reps
    return _repeat(cx, v, reps)


def diagonal(cx: LoweringContext, x, offset=0, dim1=0, dim2=1) -> Value:
    v = cx.value(x)
    rank = v.type.rank
    d1, d2 = dim1 % rank, dim2 % rank
    rest = [d for d in range(rank) if d not in (d1, d2)]
    v = cx.emit(ops.PermuteOp, v, dims=(*rest, d1, d2))
    n, m = v.type.shape[-2], v.type.shape[-1]
    if offset >= 0:
        length = max(0, min(n, m - offset))
        v = slice_dim(cx, v, rank - 1, offset, offset + length)
        v = slice_dim(cx, v, rank - 2, 0, length)
    else:
        length = max(0, min(n + offset, m))
        v = slice_dim(cx, v, rank - 2, -offset, -offset + length)
        v = slice_dim(cx, v, rank - 1, 0, length)
    lead = tuple(v.type.shape[:-2])
    flat = reshape(cx, v, (*lead, length * length))
    if length == 0:
        return reshape(cx, flat, (*lead, 0))
    return slice_dim(cx, flat, rank - 2, 0, length * length, length + 1)


@lowers(torch.diagonal, "diagonal", aten.diagonal, aten.diagonal_copy)
def _diagonal(cx: LoweringContext, x, offset=0, dim1=0, dim2=1):
    return diagonal(cx, x, offset, dim1, dim2)


@lowers(torch.trace, "trace", aten.trace)
def _trace(cx: LoweringContext, x):
    d = diagonal(cx, x)
    v = d if d.type.dtype.is_float else cx.cast(d, DType.i64)
    return cx.emit(ops.REDUCE_OPS["cuvil.sum"], v, dims=(0,), keepdim=False)


@lowers(torch.diag, "diag", aten.diag)
def _diag(cx: LoweringContext, x, diagonal_=0):
    v = cx.value(x)
    if v.type.rank == 2:
        return diagonal(cx, v, diagonal_)
    return _diag_embed(cx, v, diagonal_)


def _embed(cx: LoweringContext, v: Value, offset: int) -> Value:
    """A [..., n] tensor on diagonal `offset` of an [..., m, m] zero matrix,
    m = n + |offset|: row i, column i + offset holds v[i]."""
    n = v.type.shape[-1]
    if not isinstance(n, int):
        raise UnsupportedOpError(
            "a diagonal matrix of a dynamic size", node=cx.node_name, where=cx.where()
        )
    m = n + abs(offset)
    mask = cx.constant(torch.ones(n, dtype=torch.bool).diag(offset))
    if offset:  # the column index: v[i] sits in column i + offset (i - |offset| rows)
        pads = (max(offset, 0), max(-offset, 0))
        v = cx.emit(ops.PadOp, v, pads=pads, mode="constant", value=0.0)
    row = reshape(cx, v, (*v.type.shape[:-1], 1, m))
    return cx.emit(ops.WhereOp, mask, row, cx.scalar(0, v.type.dtype))


@lowers(torch.diag_embed, "diag_embed", aten.diag_embed)
def _diag_embed(cx: LoweringContext, x, offset=0, dim1=-2, dim2=-1):
    v = cx.value(x)
    rank = v.type.rank + 1
    d1, d2 = dim1 % rank, dim2 % rank
    if d1 == d2:
        raise UnsupportedOpError(
            f"diag_embed into one dim twice (dim1={dim1}, dim2={dim2})",
            node=cx.node_name,
            where=cx.where(),
            hint="torch refuses it too: dim1 and dim2 must differ",
        )
    if d1 > d2:  # swapping the dims is the opposite offset
        d1, d2, offset = d2, d1, -offset
    out = _embed(cx, v, int(offset))
    if (d1, d2) == (rank - 2, rank - 1):
        return out
    lead = iter(range(rank - 2))
    dims = [
        rank - 2 if i == d1 else rank - 1 if i == d2 else next(lead)
        for i in range(rank)
    ]
    return cx.emit(ops.PermuteOp, out, dims=tuple(dims))


# functionalized graphs spell view ops as copies: the same values here
for _copy, _view in {
    aten.view_copy: aten.view,
    aten.permute_copy: aten.permute,
    aten.expand_copy: aten.expand,
    aten.transpose_copy: aten.transpose,
    aten.unsqueeze_copy: aten.unsqueeze,
    aten.squeeze_copy: aten.squeeze,
    aten.select_copy: aten.select,
    aten.slice_copy: aten.slice,
    aten.t_copy: aten.t,
    aten.unbind_copy: aten.unbind,
    aten.narrow_copy: aten.narrow,
    aten.split_copy: aten.split,
    aten.alias_copy: aten.alias,
    aten.detach_copy: aten.detach,
}.items():
    _rule = lookup(_view)
    if _rule is not None:
        lowers(_copy)(_rule)


@lowers(torch.flip, "flip", aten.flip)
def _flip(cx: LoweringContext, x, *dims):
    v = cx.value(x)
    for d in _ints(dims):
        d %= max(v.type.rank, 1)
        n = v.type.shape[d] if v.type.rank else 1
        if not isinstance(n, int):
            raise UnsupportedOpError(
                "flip along a symbolic dimension", node=cx.node_name, where=cx.where()
            )
        if v.type.rank and n > 1:
            rev = cx.constant(torch.arange(n - 1, -1, -1))
            v = cx.emit(ops.IndexOp, v, rev, dims=(d,), wrap=False)
    return v


@lowers(torch.fliplr, "fliplr", aten.fliplr)
def _fliplr(cx: LoweringContext, x):
    return _flip(cx, x, (1,))


@lowers(torch.flipud, "flipud", aten.flipud)
def _flipud(cx: LoweringContext, x):
    return _flip(cx, x, (0,))


# ---- as_strided ----------------------------------------------------------------------------
_AS_STRIDED = (torch.as_strided, "as_strided", aten.as_strided, aten.as_strided_copy)


def _positions(shape, strides, offset: int) -> torch.Tensor:
    """The storage position of every element of a (shape, strides, offset) view."""
    pos = torch.full(tuple(shape), offset, dtype=torch.int64)
    for d, (n, s) in enumerate(zip(shape, strides)):
        pos += torch.arange(n).mul(s).view(*(1,) * d, n, *(1,) * (len(shape) - d - 1))
    return pos.flatten()


def _storage_map(shape, strides, offset: int) -> torch.Tensor:
    """For each storage position the view covers, the flat index of one element there
    (-1 where it covers none)."""
    pos = _positions(shape, strides, offset)
    inverse = torch.full((int(pos.max()) + 1 if pos.numel() else 0,), -1)
    inverse[pos] = torch.arange(pos.numel())
    return inverse


@lowers(*_AS_STRIDED)
def _as_strided(cx: LoweringContext, x, size, stride, storage_offset=None):
    """A view of the input's storage as eager lays it out (export's fake value, or the
    strides seen on the example run): a gather of the elements at those storage
    positions, resolved here. Refused where the layout is unknown or the view reads
    storage the input does not cover."""
    v = cx.value(x)
    node = cx.fx_node
    layout = None
    target = getattr(getattr(node, "target", None), "overloadpacket", None)
    if node is not None and (target or node.target) in _AS_STRIDED and node.args:
        layout = eager_layout(node.args[0])
    if layout is None or not all(isinstance(n, int) for n in v.type.shape):
        raise UnsupportedOpError(
            "as_strided of a tensor whose memory layout is not known at compile time",
            node=cx.node_name,
            where=cx.where(),
            hint="write the view with reshape/permute/unfold, which Cuvil lowers",
        )
    inverse = _storage_map(v.type.shape, *layout)
    offset = layout[1] if storage_offset is None else int(storage_offset)
    size, stride = _ints(size), _ints(stride)
    flat = _positions(size, stride, offset)
    inside = bool(((flat >= 0) & (flat < inverse.numel())).all())
    ok = inside and bool(
        (inverse[flat.clamp(0, max(inverse.numel() - 1, 0))] >= 0).all()
    )
    if not ok:
        raise UnsupportedOpError(
            f"as_strided(size={list(size)}, stride={list(stride)}, offset={offset}) "
            "reads memory outside the input tensor",
            node=cx.node_name,
            where=cx.where(),
        )
    if not flat.numel():
        return cx.constant(torch.empty(size, dtype=v.type.dtype.torch))
    flat_v = reshape(cx, v, (v.type.numel(),))
    index = cx.constant(inverse[flat])
    picked = cx.emit(ops.IndexOp, flat_v, index, dims=(0,), wrap=False)
    return reshape(cx, picked, tuple(size))
