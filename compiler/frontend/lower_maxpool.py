"""Max pooling (``max_pool{1,2}d``, ``nn.MaxPool{1,2}d``) and its indices
(``return_indices=True``, ``max_pool{1,2}d_with_indices``): for each window, the flat position in its input plane (``h * W + w``) of the value
max pooling picked, as torch's CPU kernel picks it:

- the first maximum in the window's scan order (rows, then columns);
- a NaN beats every number, and a later NaN beats an earlier one (torch updates on
  ``val > max or isnan(val)``);
- a window whose values are all -inf keeps its first in-bounds position.

Built from the pooled values and one strided slice of the input per window offset
(k_h * k_w of them, each the size of the output): an offset's element is the pick where
it equals the window's maximum (scanned last to first, so the first one wins), then
where it is NaN (scanned first to last, so the last one wins). The positions and the
in-bounds masks are compile-time constants: shapes are static here.
"""

from __future__ import annotations

import itertools
import math

import torch
import torch.nn.functional as F

from ..errors import UnsupportedOpError
from ..ir import ops
from ..ir.core import Value
from ..ir.types import DType
from .context import LoweringContext
from .lower_nn import _reads_result, _tup
from .lower_shape import slice_dim
from .registry import aten, lowers, named

__all__ = ["max_pool_indices"]


# ---- the rules ------------------------------------------------------------------------------
def _max_pool(n: int):
    cls = ops.MaxPool1dOp if n == 1 else ops.MaxPool2dOp

    @named(f"max_pool[{cls.name}]")
    def rule(
        cx,
        x,
        kernel_size,
        stride=None,
        padding=0,
        dilation=1,
        ceil_mode=False,
        return_indices=False,
    ):
        k = _tup(kernel_size, n)
        s = _tup(stride, n) if stride else k
        p, d = _tup(padding, n), _tup(dilation, n)
        out = cx.emit(
            cls, x, kernel=k, stride=s, padding=p, dilation=d, ceil_mode=bool(ceil_mode)
        )
        if not return_indices:
            return out
        return out, max_pool_indices(cx, cx.value(x), out, k, s, p, d)

    return rule


lowers(F.max_pool1d, torch.max_pool1d, aten.max_pool1d)(_max_pool(1))
lowers(F.max_pool2d, torch.max_pool2d, aten.max_pool2d)(_max_pool(2))


def _max_pool_with_indices(n: int):
    """(values, indices); the indices only where the graph reads them."""

    @named(f"max_pool{n}d_with_indices")
    def rule(
        cx,
        x,
        kernel_size,
        stride=None,
        padding=0,
        dilation=1,
        ceil_mode=False,
        *_,
        **__,
    ):
        pool = _max_pool(n)
        args = (cx, x, kernel_size, stride, padding, dilation, ceil_mode)
        return pool(*args, True) if _reads_result(cx, 1) else (pool(*args), None)

    return rule


lowers(aten.max_pool2d_with_indices, F.max_pool2d_with_indices)(
    _max_pool_with_indices(2)
)
lowers(aten.max_pool1d_with_indices, F.max_pool1d_with_indices)(
    _max_pool_with_indices(1)
)


# ---- the indices ----------------------------------------------------------------------------


def max_pool_indices(cx: LoweringContext, x: Value, pooled: Value, k, s, p, d) -> Value:
    """int64 indices of `pooled` (max pooling of `x` over its last len(k) dims)."""
    n = len(k)
    sizes, outs = x.type.shape[-n:], pooled.type.shape[-n:]
    if not all(isinstance(v, int) for v in (*sizes, *outs)):
        raise UnsupportedOpError(
            "max_pool indices of a dynamic size",
            node=cx.node_name,
            where=cx.where(),
        )
    padded = _pad_for_windows(cx, x, sizes, outs, k, s, p, d)
    offsets = list(itertools.product(*(range(ki) for ki in k)))
    picks = [_window_slice(cx, padded, outs, o, s, d) for o in offsets]
    where_of = [_positions(sizes, outs, o, s, p, d) for o in offsets]
    first = _first_in_bounds(sizes, outs, s, p, d)
    idx = cx.constant(first)
    for pick, (pos, ok) in reversed(list(zip(picks, where_of))):
        hit = cx.op("cuvil.eq", pick, pooled)
        hit = cx.op("cuvil.logical_and", hit, cx.constant(ok))
        idx = cx.op("cuvil.where", hit, cx.constant(pos), idx)
    if not x.type.dtype.is_float:
        return idx
    for pick, (pos, _) in zip(picks, where_of):  # padding is -inf, never NaN
        idx = cx.op("cuvil.where", cx.op("cuvil.isnan", pick), cx.constant(pos), idx)
    return idx


def _pad_for_windows(cx, x: Value, sizes, outs, k, s, p, d) -> Value:
    """`x` padded with -inf: `p` before, and after as far as the last window reaches
    (ceil_mode's last window may run past the input)."""
    pads: list[int] = []
    for size, out, ki, si, pi, di in reversed(list(zip(sizes, outs, k, s, p, d))):
        last = (out - 1) * si - pi + (ki - 1) * di
        pads += [pi, max(0, last - (size - 1))]
    if not any(pads):
        return x
    fill = -math.inf if x.type.dtype.is_float else _lowest(x.type.dtype)
    return cx.emit(ops.PadOp, x, pads=tuple(pads), mode="constant", value=fill)


def _lowest(dtype: DType) -> float:
    return float(torch.iinfo(dtype.torch).min) if dtype is not DType.i1 else 0.0


def _window_slice(cx, padded: Value, outs, offset, s, d) -> Value:
    """Every window's element at `offset`: an output-sized strided slice."""
    rank, n = padded.type.rank, len(outs)
    v = padded
    for i, (out, o, si, di) in enumerate(zip(outs, offset, s, d)):
        start = o * di
        v = slice_dim(cx, v, rank - n + i, start, start + (out - 1) * si + 1, si)
    return v


def _coords(outs, offset, s, p, d) -> list[torch.Tensor]:
    """Per spatial dim, the input coordinate of each output position's `offset` element,
    broadcast to the output's spatial shape."""
    n = len(outs)
    coords = []
    for i, (out, o, si, pi, di) in enumerate(zip(outs, offset, s, p, d)):
        c = torch.arange(out, dtype=torch.int64) * si - pi + o * di
        coords.append(c.reshape([out if j == i else 1 for j in range(n)]))
    return [c.expand(tuple(outs)) for c in coords]


def _flat(coords, sizes) -> torch.Tensor:
    flat = torch.zeros((), dtype=torch.int64)
    for c, size in zip(coords, sizes):
        flat = flat * size + c
    return flat


def _positions(sizes, outs, offset, s, p, d) -> tuple[torch.Tensor, torch.Tensor]:
    """(flat input position, in bounds) of each window's `offset` element."""
    coords = _coords(outs, offset, s, p, d)
    ok = torch.ones(tuple(outs), dtype=torch.bool)
    for c, size in zip(coords, sizes):
        ok &= (c >= 0) & (c < size)
    return _flat(coords, sizes).contiguous(), ok.contiguous()


def _first_in_bounds(sizes, outs, s, p, d) -> torch.Tensor:
    """Each window's first in-bounds position (torch's start: its pick when every
    value is -inf): the start stepped forward by the dilation past the padding."""
    coords = []
    for i, (out, si, pi, di) in enumerate(zip(outs, s, p, d)):
        c = torch.arange(out, dtype=torch.int64) * si - pi
        c = torch.where(c < 0, c + ((-c + di - 1) // di) * di, c)
        coords.append(c.reshape([out if j == i else 1 for j in range(len(outs))]))
    return _flat([c.expand(tuple(outs)) for c in coords], sizes).contiguous()
