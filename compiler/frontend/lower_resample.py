"""Lowering rules for padding (F.pad and ATen's pad family), interpolation (F.interpolate,
ATen's upsample_nearest*/upsample_linear1d/upsample_bilinear2d, ``.vec`` and default
overloads) and group normalization. nn.ZeroPad2d, nn.ReflectionPad*, nn.Upsample and
nn.GroupNorm are traced through to these functional calls."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ..ir import ops
from ..ir.core import Value
from ..ir.types import DType
from . import lower_nn
from .context import LoweringContext, refuse_extra
from .lower_nn import _unsupported
from .lower_shape import reshape
from .registry import aten, lowers, named

__all__ = ["pad", "upsample"]


# ---- padding -------------------------------------------------------------------------------
def pad(cx: LoweringContext, x, pads, mode="constant", value=None) -> Value:
    v = cx.value(x)
    pads = tuple(int(p) for p in pads)
    if mode not in ops.resample.PAD_MODES:
        raise _unsupported(cx, f"pad mode={mode!r}")
    if mode != "constant" and any(p < 0 for p in pads):
        raise _unsupported(cx, f"negative {mode} pads {list(pads)}")
    if len(pads) % 2 or len(pads) // 2 > v.type.rank:
        raise _unsupported(cx, f"pads {list(pads)} for a rank-{v.type.rank} input")
    if mode != "constant" and value:
        raise _unsupported(cx, f"pad value {value} with mode={mode!r}")
    value = 0.0 if value is None else value
    if isinstance(value, Value):
        raise _unsupported(cx, "a pad value computed at run time")
    if not any(pads):
        return v
    value = _int_pad_value(cx, v, pads, float(value))
    return cx.emit(ops.PadOp, v, pads=pads, mode=mode, value=value)


def _int_pad_value(cx: LoweringContext, v: Value, pads, value: float) -> float:
    """The fill of an integer pad: unused where every pad crops (torch then takes any
    value, inf too: fuzz 7031598 crashed making an int64 constant of it); a value no
    int64 holds torch refuses where it fills, and so does Cuvil."""
    dtype = v.type.dtype
    if dtype.is_float or dtype is DType.i1 or abs(value) < 2.0**63:
        return value
    if all(p <= 0 for p in pads):
        return 0.0
    raise _unsupported(
        cx,
        f"constant pad of a {dtype} tensor with value {value}",
        hint="torch refuses it too: the value cannot be converted without overflow",
    )


lowers(F.pad, aten.pad)(pad)


@lowers(aten.constant_pad_nd)
def _constant_pad_nd(cx: LoweringContext, x, pads, value=0) -> Value:
    return pad(cx, x, pads, "constant", value)


def _mode_pad(mode: str):
    @named(f"pad[{mode}]")
    def rule(cx: LoweringContext, x, padding) -> Value:
        return pad(cx, x, padding, mode)

    return rule


lowers(aten.reflection_pad1d, aten.reflection_pad2d, aten.reflection_pad3d)(
    _mode_pad("reflect")
)
lowers(aten.replication_pad1d, aten.replication_pad2d, aten.replication_pad3d)(
    _mode_pad("replicate")
)
lowers(aten._pad_circular)(_mode_pad("circular"))


# ---- interpolation -------------------------------------------------------------------------
def upsample(cx: LoweringContext, x, mode: str, size, scales, align=False) -> Value:
    """`size` (output spatial sizes) or `scales` (factors: the size is floor(in * s), and
    torch's index formulas use 1/s); a scale of None or 0 in a list means in/out."""
    v = cx.value(x)
    n = v.type.rank - 2
    if n not in (1, 2):
        raise _unsupported(cx, f"{mode} upsampling of a rank-{v.type.rank} input")
    spatial = v.type.shape[2:]
    if not all(isinstance(s, int) for s in spatial):
        raise _unsupported(cx, f"upsampling an input of symbolic size ({v.type})")
    if mode == "linear" and not v.type.dtype.is_float:  # torch interpolates uint8 too
        raise _unsupported(cx, f"linear upsampling of an integer tensor ({v.type})")
    if scales is not None and not isinstance(scales, (list, tuple)):
        scales = (scales,) * n
    if scales is not None:  # aten's (scales_h, scales_w) may end early: None is in/out
        scales = (*scales, *(None,) * (n - len(scales)))
    if size is None:
        if scales is None:
            raise _unsupported(cx, "upsampling without size or scale factors")
        size = [int(s * f) for s, f in zip(spatial, scales)]
    elif isinstance(size, int):
        size = (size,) * n
    scales = tuple(float(s or 0.0) for s in scales) if scales is not None else ()
    return cx.emit(
        ops.UpsampleOp,
        v,
        size=tuple(int(s) for s in size),
        mode=mode,
        align_corners=bool(align),
        scales=scales,
    )


_MODES = {"nearest": "nearest", "nearest-exact": "nearest-exact"}


@lowers(F.interpolate)
def _interpolate(
    cx: LoweringContext,
    x,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
) -> Value:
    v = cx.value(x)
    linear = {"linear": 3, "bilinear": 4}.get(mode)
    if mode == "area" and v.type.rank in (3, 4) and not antialias:
        return _area(cx, v, size, scale_factor)
    if antialias or (mode not in _MODES and linear != v.type.rank):
        raise _unsupported(
            cx,
            f"F.interpolate(mode={mode!r}, antialias={antialias}) of a rank-"
            f"{v.type.rank} input",
            hint="supported: nearest, nearest-exact, linear (3-d), bilinear (4-d), area",
        )
    if recompute_scale_factor and scale_factor is not None:
        sf = scale_factor
        if not isinstance(sf, (list, tuple)):
            sf = (sf,) * (v.type.rank - 2)
        size = [int(s * f) for s, f in zip(v.type.shape[2:], sf)]
        scale_factor = None
    m = _MODES.get(mode, "linear")
    return upsample(cx, v, m, size, scale_factor, bool(align_corners))


def _area(cx: LoweringContext, v: Value, size, scale_factor) -> Value:
    """mode="area" is adaptive average pooling to the output size."""
    n = v.type.rank - 2
    if size is None:
        sf = (
            scale_factor
            if isinstance(scale_factor, (list, tuple))
            else (scale_factor,) * n
        )
        size = [int(s * f) for s, f in zip(v.type.shape[2:], sf)]
    return lower_nn._adaptive_avg_pool(n)(cx, v, size)


def _vec(mode: str, linear: bool):
    @named(f"upsample_vec[{mode}]")
    def rule(cx: LoweringContext, x, output_size, *args, **kw) -> Value:
        names = ("align_corners", "scale_factors") if linear else ("scale_factors",)
        given = dict(zip(names, args)) | kw
        align = given.get("align_corners", False)
        return upsample(cx, x, mode, output_size, given.get("scale_factors"), align)

    return rule


def _default(mode: str, linear: bool):
    """aten.upsample_*.default(x, output_size, [align_corners,] scales...): the scales
    as positional arguments or keywords (scales, scales_h, scales_w)."""

    @named(f"upsample[{mode}]")
    def rule(cx: LoweringContext, x, output_size, *args, **kw) -> Value:
        align, args = (
            (args[0] if args else kw.pop("align_corners"), args[1:])
            if linear
            else (False, args)
        )
        if "scales" in kw:
            kw["scales_h"] = kw.pop("scales")
        scales = list(args)
        for i, key in enumerate(("scales_h", "scales_w")):
            if key in kw:
                scales += [None] * (i + 1 - len(scales))
                scales[i] = kw.pop(key)
        refuse_extra(cx, f"upsample[{mode}]", kw)
        scales = scales if any(s is not None for s in scales) else None
        return upsample(cx, x, mode, output_size, scales, align)

    return rule


for _n in (1, 2):
    for _name, _mode in (
        ("upsample_nearest", "nearest"),
        ("_upsample_nearest_exact", "nearest-exact"),
    ):
        _packet = getattr(aten, f"{_name}{_n}d")
        lowers(_packet.vec)(_vec(_mode, False))
        lowers(_packet.default)(_default(_mode, False))
    _packet = aten.upsample_linear1d if _n == 1 else aten.upsample_bilinear2d
    lowers(_packet.vec)(_vec("linear", True))
    lowers(_packet.default)(_default("linear", True))


# ---- group norm ----------------------------------------------------------------------------
@lowers(F.group_norm, aten.group_norm)
def group_norm(
    cx, x, num_groups, weight=None, bias=None, eps=1e-5, *_, cudnn_enabled=True
) -> Value:  # cudnn_enabled: aten.group_norm's backend flag, no effect on the CPU
    v = cx.value(x)
    if v.type.rank < 2:
        raise _unsupported(cx, f"group_norm of a rank-{v.type.rank} input")
    v, (weight, bias), back = lower_nn.in_float(cx, v, weight, bias)
    if weight is None and bias is not None:
        weight = torch.ones(v.type.shape[1], dtype=v.type.dtype.torch)
    args = [v] + [a for a in (weight, bias) if a is not None]
    return back(cx.emit(ops.GroupNormOp, *args, groups=int(num_groups), eps=float(eps)))


@lowers(aten.native_group_norm)
def _native_group_norm(cx, x, weight, bias, n, c, hw, groups, eps):
    """torch reads the input as (n, c, hw) whatever its shape (fuzz 7408039: a [2, 2]
    input with n=1, c=2, hw=2 is one sample of two channels of two values)."""
    v = cx.value(x)
    shape = v.type.shape
    dims = (shape[0], shape[1], math.prod(shape[2:])) if len(shape) >= 2 else None
    if dims == (n, c, hw) or not all(isinstance(d, int) for d in (n, c, hw)):
        return group_norm(cx, x, groups, weight, bias, eps), None, None
    if n * c * hw != v.type.numel():
        raise _unsupported(cx, f"native_group_norm(N={n}, C={c}, HxW={hw}) of {shape}")
    out = group_norm(cx, reshape(cx, v, (n, c, hw)), groups, weight, bias, eps)
    return reshape(cx, out, shape), None, None
