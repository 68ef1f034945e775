"""3-d average pooling (avg_pool3d, adaptive_avg_pool3d) as separable pools: a 1-d pool
along depth, then a 2-d pool over height and width.

Exact, not an approximation: a window is a box, so the number of elements it averages
(padding counted or not, ceil_mode's clipped last window, adaptive windows) is the product
of the per-dim counts, and each stage divides by its own. ``divisor_override`` sums along
depth (divisor 1) and divides once in the 2-d stage.
"""

from __future__ import annotations

import torch.nn.functional as F

from ..ir import ops
from ..ir.core import Value
from ..ir.types import DType
from .context import LoweringContext
from .lower_nn import _tup, _unsupported
from .lower_shape import reshape
from .registry import aten, lowers


def _separable(cx: LoweringContext, x, depth_pool, plane_pool) -> Value:
    """[N, C, D, H, W] (or [C, D, H, W]) -> depth_pool along D -> plane_pool over H, W."""
    v = cx.value(x)
    if v.type.rank not in (4, 5) or not all(isinstance(n, int) for n in v.type.shape):
        raise _unsupported(cx, f"3-d pooling of {v.type} (rank 4 or 5, static sizes)")
    half = v.type.dtype in (DType.f16, DType.bf16)
    if half:  # the two stages in float, rounded once as eager's one-pass kernel
        v = cx.cast(v, DType.f32)
    lead, (d, h, w) = v.type.shape[:-3], v.type.shape[-3:]
    rows = 1
    for n in lead:
        rows *= n
    # depth last: [rows, D, H, W] -> [rows, H, W, D] -> [1, rows*H*W, D]
    t = cx.emit(ops.PermuteOp, reshape(cx, v, (rows, d, h, w)), dims=(0, 2, 3, 1))
    t = depth_pool(reshape(cx, t, (1, rows * h * w, d)))
    d2 = t.type.shape[-1]
    t = cx.emit(ops.PermuteOp, reshape(cx, t, (rows, h, w, d2)), dims=(0, 3, 1, 2))
    t = plane_pool(reshape(cx, t, (1, rows * d2, h, w)))
    out = reshape(cx, t, (*lead, d2, *t.type.shape[-2:]))
    return cx.cast(out, cx.value(x).type.dtype) if half else out


@lowers(F.avg_pool3d, aten.avg_pool3d)
def _avg_pool3d(
    cx,
    x,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
):
    if divisor_override is not None and divisor_override <= 0:
        raise _unsupported(cx, f"avg_pool3d divisor_override={divisor_override}")
    if divisor_override is None and not cx.value(x).type.dtype.is_float:
        # depth then plane, each dividing truncating, is not one truncating division
        # of the box's sum (8/9 is 0; (5+5+0)//3 then //3 over the plane gave 1)
        raise _unsupported(cx, "avg_pool3d of an integer tensor")
    k = _tup(kernel_size, 3)
    s = _tup(stride, 3) if stride else k
    p = _tup(padding, 3)
    flags = {"ceil_mode": bool(ceil_mode), "count_include_pad": bool(count_include_pad)}
    summed = divisor_override is not None

    def depth(t):
        return cx.emit(
            ops.AvgPool1dOp,
            t,
            kernel=k[:1],
            stride=s[:1],
            padding=p[:1],
            divisor_override=1 if summed else None,
            **flags,
        )

    def plane(t):
        return cx.emit(
            ops.AvgPool2dOp,
            t,
            kernel=k[1:],
            stride=s[1:],
            padding=p[1:],
            divisor_override=divisor_override,
            **flags,
        )

    return _separable(cx, x, depth, plane)


@lowers(
    F.adaptive_avg_pool3d,
    aten.adaptive_avg_pool3d,
    aten._adaptive_avg_pool3d,
)
def _adaptive_avg_pool3d(cx: LoweringContext, x, output_size):
    v = cx.value(x)
    size = (output_size,) * 3 if isinstance(output_size, int) else tuple(output_size)
    if len(size) != 3:
        raise _unsupported(cx, f"adaptive_avg_pool3d output_size={output_size!r}")
    size = tuple(n if o is None else int(o) for o, n in zip(size, v.type.shape[-3:]))

    def depth(t):
        return cx.emit(ops.AdaptiveAvgPool1dOp, t, output_size=size[:1])

    def plane(t):
        return cx.emit(ops.AdaptiveAvgPool2dOp, t, output_size=size[1:])

    return _separable(cx, v, depth, plane)
