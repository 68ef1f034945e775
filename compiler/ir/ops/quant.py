"""Quantization ops: quantize / dequantize with scales and zero points, and the fake ops
of the "QDQ" form (docs/QUANT.md).

The arithmetic is float32 throughout and spelled out here, because code generation
reproduces it bit for bit:

- ``cuvil.quantize``: ``q = clamp(round_half_even(x * inv) + zp, qmin, qmax)`` with
  ``inv = f32(1 / scale)`` (the double quotient rounded to float32), as torch's
  ``quantized_decomposed.quantize_per_tensor`` does;
- ``cuvil.dequantize``: ``x = f32(q - zp) * f32(scale)``;
- ``cuvil.fake_quantize_dynamic``: the parameters ONNX Runtime's DynamicQuantizeLinear
  computes from the tensor itself (u8, ``lo = min(min x, 0)``, ``hi = max(max x, 0)``,
  ``scale = (hi - lo) / 255``, ``zp = clamp(round(-lo / scale), 0, 255)``, in float32),
  then quantize and dequantize;
- ``cuvil.round_bf16``: x rounded to bfloat16 (to nearest even, NaN kept) and back.

``scale`` and ``zero_point`` are lists: one element per tensor, or one per channel of
dim ``axis``. Scales are float32 values (the verifier checks that they are).
"""

from __future__ import annotations

import math

import torch

from ..attributes import AttrSpec
from ..core import Operation, Trait, register_op
from ..types import DType, TensorType
from .layout import ANY_LAYOUT

__all__ = [
    "QuantizeOp",
    "DequantizeOp",
    "FakeQuantizeDynamicOp",
    "RoundBf16Op",
    "QRANGE",
    "f32",
    "inv_scale",
    "quantize_tensor",
    "dequantize_tensor",
    "dynamic_qparams",
    "check_scale",
]

QRANGE = {DType.u8: (0, 255), DType.i8: (-128, 127), DType.i32: (-(2**31), 2**31 - 1)}
_PURE = frozenset({Trait.PURE})


def f32(x: float) -> float:
    """`x` rounded to the nearest float32 (returned as a Python float)."""
    return float(torch.tensor(x, dtype=torch.float32))


def inv_scale(scale: float) -> float:
    """The float32 multiplier quantization uses: f32(1 / scale)."""
    return f32(1.0 / scale)


def check_scale(op: Operation, name: str, s: float) -> None:
    if not (math.isfinite(s) and s > 0):
        raise op.fail(f"{name} {s!r} must be a finite number > 0")
    if f32(s) != s or not math.isfinite(1.0 / s) or inv_scale(s) == 0:
        raise op.fail(f"{name} {s!r} is not a normal float32 value")


def _channel_shape(x: torch.Tensor, axis: int | None) -> list[int]:
    shape = [1] * x.dim()
    if axis is not None:
        shape[axis] = x.shape[axis]
    return shape


def quantize_tensor(
    x: torch.Tensor,
    scale,
    zero_point,
    axis: int | None,
    qmin: int,
    qmax: int,
    dtype: torch.dtype,
) -> torch.Tensor:
    """The quantize op's meaning (module docstring), per tensor or per channel."""
    shape = _channel_shape(x, axis) if axis is not None else []
    inv = torch.tensor([1.0 / s for s in scale], dtype=torch.float32).reshape(shape)
    zp = torch.tensor(list(zero_point), dtype=torch.float32).reshape(shape)
    r = torch.round(x.float() * inv) + zp
    return r.clamp(qmin, qmax).to(dtype)


def dequantize_tensor(
    q: torch.Tensor, scale, zero_point, axis: int | None
) -> torch.Tensor:
    shape = _channel_shape(q, axis) if axis is not None else []
    s = torch.tensor(list(scale), dtype=torch.float32).reshape(shape)
    zp = torch.tensor(list(zero_point), dtype=torch.int32).reshape(shape)
    return (q.to(torch.int32) - zp).to(torch.float32) * s


def dynamic_qparams(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(scale, zero point) as 0-d float32 tensors: DynamicQuantizeLinear's u8 rule."""
    zero = torch.zeros((), dtype=torch.float32)
    lo = torch.minimum(x.min(), zero) if x.numel() else zero
    hi = torch.maximum(x.max(), zero) if x.numel() else zero
    scale = (hi - lo) / torch.tensor(255.0)
    scale = torch.where(scale > 0, scale, torch.ones((), dtype=torch.float32))
    zp = torch.round(zero - lo / scale).clamp(0, 255)
    return scale, zp


def _qparams_attrs() -> dict[str, AttrSpec]:
    return {
        "scale": AttrSpec("floats"),
        "zero_point": AttrSpec("ints"),
        "axis": AttrSpec("int", default=None, min=0),
    }


class _QParamsOp(Operation):
    """Checks shared by quantize and dequantize: the scale and zero point lists."""

    def _check_qparams(self, t: TensorType, qdtype: DType) -> None:
        a = self.attrs
        scale, zp, axis = a["scale"], a["zero_point"], a.get("axis")
        if len(scale) != len(zp):
            raise self.fail(
                f"scale has {len(scale)} elements but zero_point has {len(zp)}"
            )
        if axis is None and len(scale) != 1:
            raise self.fail(f"a per-tensor scale has 1 element, got {len(scale)}")
        if axis is not None:
            if axis >= t.rank:
                raise self.fail(f"axis {axis} is out of range for {t}")
            if t.shape[axis] != len(scale):
                raise self.fail(
                    f"axis {axis} of {t} has {t.shape[axis]} channels but "
                    f"{len(scale)} scales"
                )
        for s in scale:
            check_scale(self, "scale", s)
        lo, hi = self.qrange(qdtype)
        bad = [z for z in zp if not lo <= z <= hi]
        if bad:
            raise self.fail(f"zero_point {bad[0]} is outside [{lo}, {hi}]")

    def qrange(self, qdtype: DType) -> tuple[int, int]:
        lo, hi = QRANGE[qdtype]
        return self.attrs.get("quant_min", lo), self.attrs.get("quant_max", hi)


@register_op
class QuantizeOp(_QParamsOp):
    """``cuvil.quantize(%x) {scale = [0.02], zero_point = [128], dtype = u8}``: float32
    to int8/uint8 (module docstring); ``quant_min``/``quant_max`` narrow the range,
    ``layout`` stores the result in another layout (``nhwc``: for ``cuvil.qconv2d``)."""

    name = "cuvil.quantize"
    OPERANDS = ("x",)
    TRAITS = _PURE
    LAYOUTS = ANY_LAYOUT
    ATTRS = {
        **_qparams_attrs(),
        "dtype": AttrSpec("dtype"),
        "quant_min": AttrSpec("int", default=None),
        "quant_max": AttrSpec("int", default=None),
        "layout": AttrSpec("str", default=None, choices=("contiguous", "nhwc")),
    }

    def infer_types(self) -> list[TensorType]:
        (x,) = self.operand_types
        dtype = self.attrs["dtype"]
        if x.dtype is not DType.f32:
            raise self.fail(f"quantizes float32 tensors, got {x}")
        if dtype not in (DType.u8, DType.i8):
            raise self.fail(f"dtype must be u8 or i8, got {dtype}")
        self._check_qparams(x, dtype)
        lo, hi = self.qrange(dtype)
        full = QRANGE[dtype]
        if not full[0] <= lo <= hi <= full[1]:
            raise self.fail(f"quant range [{lo}, {hi}] does not fit {dtype}")
        layout = self.attrs.get("layout") or x.layout
        if layout == "nhwc" and x.rank != 4:
            raise self.fail(f"layout nhwc needs a rank-4 tensor, got {x}")
        return [TensorType(x.shape, dtype, layout)]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        a = self.attrs
        lo, hi = self.qrange(a["dtype"])
        return quantize_tensor(
            x, a["scale"], a["zero_point"], a.get("axis"), lo, hi, a["dtype"].torch
        )


@register_op
class DequantizeOp(_QParamsOp):
    """``cuvil.dequantize(%q) {scale = [0.02], zero_point = [128]}``: int8/uint8/int32 to
    float32, ``f32(q - zp) * scale`` (per tensor, or per channel of ``axis``)."""

    name = "cuvil.dequantize"
    OPERANDS = ("q",)
    TRAITS = _PURE
    LAYOUTS = ANY_LAYOUT
    ATTRS = _qparams_attrs()

    def infer_types(self) -> list[TensorType]:
        (q,) = self.operand_types
        if q.dtype not in QRANGE:
            raise self.fail(f"dequantizes u8, i8 or i32 tensors, got {q}")
        self._check_qparams(q, q.dtype)
        return [q.with_dtype(DType.f32)]

    def reference(self, q: torch.Tensor) -> torch.Tensor:
        a = self.attrs
        return dequantize_tensor(q, a["scale"], a["zero_point"], a.get("axis"))


@register_op
class FakeQuantizeDynamicOp(Operation):
    """``cuvil.fake_quantize_dynamic(%x)``: x quantized to u8 with parameters taken
    from x itself at run time (module docstring), and dequantized: dynamic int8's
    activations in the QDQ form."""

    name = "cuvil.fake_quantize_dynamic"
    OPERANDS = ("x",)
    TRAITS = _PURE

    def infer_types(self) -> list[TensorType]:
        (x,) = self.operand_types
        if x.dtype is not DType.f32:
            raise self.fail(f"quantizes float32 tensors, got {x}")
        return [x]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        scale, zp = dynamic_qparams(x)
        inv = torch.ones((), dtype=torch.float32) / scale
        q = (torch.round(x * inv) + zp).clamp(0, 255)
        return (q - zp) * scale


@register_op
class RoundBf16Op(Operation):
    """``cuvil.round_bf16(%x)``: float32 rounded to bfloat16 precision (nearest even;
    torch's ``x.bfloat16().float()``): bf16 mode's activations in the QDQ form."""

    name = "cuvil.round_bf16"
    OPERANDS = ("x",)
    TRAITS = _PURE
    LAYOUTS = ANY_LAYOUT

    def infer_types(self) -> list[TensorType]:
        (x,) = self.operand_types
        if x.dtype is not DType.f32:
            raise self.fail(f"rounds float32 tensors, got {x}")
        return [x]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return x.to(torch.bfloat16).to(torch.float32)
