"""Lowering rules for the quantize / dequantize ops of models quantized with torch.ao.

torch.ao's PT2E flow (``prepare_pt2e`` / ``convert_pt2e``, moved to torchao) and FX
graph mode's ``_convert_to_reference_decomposed_fx`` (still in torch 2.13) write the
quantized model as float ops between ``quantized_decomposed.quantize_per_tensor`` /
``dequantize_per_tensor`` (activations) and ``quantize_per_channel`` /
``dequantize_per_channel`` (weights). They become ``cuvil.quantize`` /
``cuvil.dequantize`` (scales rounded to float32; docs/QUANT.md), which the ``fold-qdq``
pass turns into int8 kernels where the pattern allows it and which run as float32
fake quantization elsewhere. Scales and zero points must be known at compile time.
"""

from __future__ import annotations

import torch

from ..errors import UnsupportedOpError
from ..ir import ops
from ..ir.ops.quant import f32
from ..ir.types import DType
from .context import LazyTensor, LoweringContext
from .registry import aten, lowers

__all__ = ["QD"]

try:  # registers the quantized_decomposed ops with torch (a graph can only have them then)
    import torch.ao.quantization.fx._decomposed  # noqa: F401

    QD = torch.ops.quantized_decomposed
except ImportError:  # pragma: no cover - a torch without torch.ao's decomposed ops
    QD = None


def _known(cx: LoweringContext, x, what: str) -> list:
    """A compile-time scalar or tensor (scale, zero point) as a list of numbers."""
    if isinstance(x, LazyTensor):
        x = x.data
    if isinstance(x, torch.Tensor):
        return x.detach().reshape(-1).tolist()
    if isinstance(x, (int, float)):
        return [x]
    raise UnsupportedOpError(
        f"quantization with a {what} computed at run time",
        node=cx.node_name,
        where=cx.where(),
        hint="Cuvil compiles quantize / dequantize ops whose scales and zero points "
        "are constants (static quantization); see docs/QUANT.md",
    )


def _dtype(cx: LoweringContext, dtype: torch.dtype) -> DType:
    if dtype not in (torch.uint8, torch.int8):
        raise UnsupportedOpError(
            f"quantization to {dtype}",
            node=cx.node_name,
            where=cx.where(),
            hint="Cuvil quantizes to torch.uint8 and torch.int8",
        )
    return DType.from_torch(dtype)


def _quantize(cx, x, scale, zero_point, axis, quant_min, quant_max, dtype):
    scales = [f32(float(s)) for s in _known(cx, scale, "scale")]
    zps = [int(z) for z in _known(cx, zero_point, "zero point")]
    kind = _dtype(cx, dtype)
    v = cx.value(x)
    if v.type.dtype is not DType.f32:
        v = cx.emit(ops.CastOp, v, dtype=DType.f32)
    limits = {"quant_min": int(quant_min), "quant_max": int(quant_max)}
    return cx.emit(
        ops.QuantizeOp,
        v,
        scale=tuple(scales),
        zero_point=tuple(zps),
        axis=None if axis is None else axis % v.type.rank,
        dtype=kind,
        **limits,
    )


def _dequantize(cx, x, scale, zero_point, axis, out_dtype):
    scales = [f32(float(s)) for s in _known(cx, scale, "scale")]
    zps = (
        [int(z) for z in _known(cx, zero_point, "zero point")]
        if zero_point is not None
        else [0] * len(scales)
    )
    v = cx.value(x)
    out = cx.emit(
        ops.DequantizeOp,
        v,
        scale=tuple(scales),
        zero_point=tuple(zps),
        axis=None if axis is None else axis % v.type.rank,
    )
    if out_dtype not in (None, torch.float32):
        out = cx.emit(ops.CastOp, out, dtype=DType.from_torch(out_dtype))
    return out


if QD is not None:

    @lowers(QD.quantize_per_tensor)
    def _quantize_per_tensor(cx, input, scale, zero_point, quant_min, quant_max, dtype):
        return _quantize(
            cx, input, scale, zero_point, None, quant_min, quant_max, dtype
        )

    @lowers(QD.dequantize_per_tensor)
    def _dequantize_per_tensor(
        cx, input, scale, zero_point, quant_min, quant_max, dtype, *, out_dtype=None
    ):
        return _dequantize(cx, input, scale, zero_point, None, out_dtype)

    @lowers(QD.quantize_per_channel)
    def _quantize_per_channel(
        cx, input, scales, zero_points, axis, quant_min, quant_max, dtype
    ):
        return _quantize(
            cx, input, scales, zero_points, axis, quant_min, quant_max, dtype
        )

    @lowers(QD.dequantize_per_channel)
    def _dequantize_per_channel(
        cx,
        input,
        scales,
        zero_points,
        axis,
        quant_min,
        quant_max,
        dtype,
        *,
        out_dtype=None,
    ):
        return _dequantize(cx, input, scales, zero_points, axis, out_dtype)


# ---- fake quantization (QAT models, torch.ao's FakeQuantize): quantize + dequantize ------
def _fake(cx, x, scale, zero_point, axis, quant_min, quant_max):
    dtype = torch.uint8 if quant_min >= 0 and quant_max <= 255 else torch.int8
    if not (-128 <= quant_min <= quant_max <= 255):
        raise UnsupportedOpError(
            f"fake quantization to [{quant_min}, {quant_max}]",
            node=cx.node_name,
            where=cx.where(),
            hint="Cuvil quantizes to 8 bits",
        )
    q = _quantize(cx, x, scale, zero_point, axis, quant_min, quant_max, dtype)
    return _dequantize(cx, q, scale, zero_point, axis, None)


@lowers(torch.fake_quantize_per_tensor_affine, aten.fake_quantize_per_tensor_affine)
def _fake_per_tensor(cx, input, scale, zero_point, quant_min, quant_max):
    return _fake(cx, input, scale, zero_point, None, quant_min, quant_max)


@lowers(torch.fake_quantize_per_channel_affine, aten.fake_quantize_per_channel_affine)
def _fake_per_channel(cx, input, scale, zero_point, axis, quant_min, quant_max):
    return _fake(cx, input, scale, zero_point, axis, quant_min, quant_max)
