"""Quantized contractions: int8 linear / conv2d with their requantizing epilogue, and the
bfloat16 ones (docs/QUANT.md).

``cuvil.qlinear(%x, %w, %bias) {x_scale, x_zero_point, w_scale, out_dtype, ...}``:
x is uint8 (static: ``x_scale`` given) or float32 (dynamic: x is quantized at run time
as ``cuvil.fake_quantize_dynamic`` does), w is int8 [N, K] with one symmetric scale per
output channel, bias is float32. Its meaning, exact where integers are:

    acc[r, n] = sum_k (x[r, k] - x_zp) * w[n, k]                      (int32, exact)
    out_dtype = i32:  acc
    y = f32(acc) * mult[n] (+ bias[n]),  mult = f32(f32(x_scale) * w_scale[n])
    y = clamp(y, clamp_min, clamp_max)                                (the activation)
    out_dtype = f32:  y
    out_dtype = u8/i8: clamp(round_half_even(y * f32(1/out_scale)) + out_zero_point,
                             out_quant_min, out_quant_max)

``cuvil.qconv2d`` is the same over a 2-D convolution (groups 1 or depthwise; padding
pads x with x_zp, i.e. with real zeros); its input may be ``nhwc`` and ``layout = "nhwc"`` writes
an int8 result channels-last. ``cuvil.linear_bf16`` / ``conv2d_bf16`` /
``matmul_bf16`` round their float32 activations to bfloat16, take bfloat16 weights (a
matmul's second operand is float32 too), and accumulate in float32.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..attributes import AttrSpec
from ..core import Operation, Trait, register_op
from ..types import DType, TensorType
from .linalg import ConvOp, MatmulOp, window_attrs
from .quant import QRANGE, check_scale, dynamic_qparams, f32, quantize_tensor

__all__ = [
    "QLinearOp",
    "QConv2dOp",
    "LinearBf16Op",
    "Conv2dBf16Op",
    "MatmulBf16Op",
    "MAX_QK",
    "requantize",
    "clamp_attrs",
]

# K up to this keeps |acc| <= K * 255 * 128 below 2**31 (int32 accumulators)
MAX_QK = 65_536
_PURE = frozenset({Trait.PURE})


def clamp_attrs() -> dict[str, AttrSpec]:
    return {
        "clamp_min": AttrSpec("float", default=None),
        "clamp_max": AttrSpec("float", default=None),
    }


def _clamp(op: Operation, y: torch.Tensor) -> torch.Tensor:
    lo, hi = op.attrs.get("clamp_min"), op.attrs.get("clamp_max")
    return y if lo is None and hi is None else torch.clamp(y, lo, hi)


def requantize(
    op: Operation, acc: torch.Tensor, xs: torch.Tensor, bias, channel_dim: int
) -> torch.Tensor:
    """The epilogue (module docstring) of int64 accumulators; `xs` is the float32
    activation scale, per-channel values broadcast along `channel_dim`."""
    a = op.attrs
    out = a.get("out_dtype", DType.f32)
    if out is DType.i32:
        return acc.to(torch.int32)
    shape = [1] * acc.dim()
    shape[channel_dim] = -1
    ws = torch.tensor(a["w_scale"], dtype=torch.float32)
    y = acc.to(torch.float32) * (xs * ws).reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    y = _clamp(op, y)
    if out is DType.f32:
        return y
    lo, hi = QRANGE[out]
    lo, hi = a.get("out_quant_min", lo), a.get("out_quant_max", hi)
    return quantize_tensor(
        y, [a["out_scale"]], [a.get("out_zero_point", 0)], None, lo, hi, out.torch
    )


class _QuantContraction(Operation):
    """Attribute checks shared by qlinear and qconv2d."""

    TRAITS = _PURE

    def _check_quant(self, x: TensorType, w: TensorType, bias: list) -> None:
        a = self.attrs
        static = a.get("x_scale") is not None
        if static and x.dtype is not DType.u8:
            raise self.fail(f"a static int8 input is u8, got {x}")
        if not static and x.dtype is not DType.f32:
            raise self.fail(f"a dynamic input (no x_scale) is float32, got {x}")
        if static:
            check_scale(self, "x_scale", a["x_scale"])
            if not 0 <= a.get("x_zero_point", 0) <= 255:
                raise self.fail(f"x_zero_point {a['x_zero_point']} is outside [0, 255]")
        if w.dtype is not DType.i8:
            raise self.fail(f"weight must be i8, got {w}")
        if len(a["w_scale"]) != w.shape[0]:
            raise self.fail(
                f"{w.shape[0]} output channels but {len(a['w_scale'])} w_scale"
            )
        for s in a["w_scale"]:
            check_scale(self, "w_scale", s)
        if bias and (bias[0].dtype is not DType.f32 or bias[0].shape != (w.shape[0],)):
            raise self.fail(f"bias must be tensor<{w.shape[0]}xf32>, got {bias[0]}")
        self._check_out(bias)

    def _check_out(self, bias: list) -> None:
        a = self.attrs
        out = a.get("out_dtype", DType.f32)
        if out not in (DType.f32, DType.u8, DType.i8, DType.i32):
            raise self.fail(f"out_dtype must be f32, u8, i8 or i32, got {out}")
        if out is DType.i32 and (bias or a.get("clamp_min") is not None):
            raise self.fail("an i32 result is the raw accumulator: no bias, no clamp")
        if out in (DType.u8, DType.i8):
            if a.get("out_scale") is None:
                raise self.fail(f"an {out} result needs out_scale")
            check_scale(self, "out_scale", a["out_scale"])
            lo, hi = QRANGE[out]
            qlo, qhi = a.get("out_quant_min", lo), a.get("out_quant_max", hi)
            if (
                not lo <= qlo <= qhi <= hi
                or not qlo <= a.get("out_zero_point", 0) <= qhi
            ):
                raise self.fail(
                    f"out range [{qlo}, {qhi}] / zero point do not fit {out}"
                )
        elif a.get("out_scale") is not None:
            raise self.fail(f"out_scale is for u8/i8 results, not {out}")

    def _activation(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, int]:
        """(u8 values, f32 scale, zero point) of the input, static or dynamic."""
        a = self.attrs
        if a.get("x_scale") is not None:
            xs = torch.tensor(f32(a["x_scale"]), dtype=torch.float32)
            return x, xs, int(a.get("x_zero_point", 0))
        scale, zp = dynamic_qparams(x)
        inv = torch.ones((), dtype=torch.float32) / scale
        q = (torch.round(x * inv) + zp).clamp(0, 255).to(torch.uint8)
        return q, scale, int(zp)


def _quant_attrs() -> dict[str, AttrSpec]:
    return {
        "x_scale": AttrSpec("float", default=None),
        "x_zero_point": AttrSpec("int", default=None),
        "w_scale": AttrSpec("floats"),
        "out_dtype": AttrSpec("dtype", default=None),
        "out_scale": AttrSpec("float", default=None),
        "out_zero_point": AttrSpec("int", default=None),
        "out_quant_min": AttrSpec("int", default=None),
        "out_quant_max": AttrSpec("int", default=None),
        **clamp_attrs(),
    }


@register_op
class QLinearOp(_QuantContraction):
    """``cuvil.qlinear(%x, %w, %b) {x_scale, x_zero_point, w_scale, ...}``: x[..., K]
    (u8, or f32 when dynamic) @ w[N, K]^T (i8), the epilogue of the module docstring."""

    name = "cuvil.qlinear"
    OPERANDS = ("x", "weight", "bias?")
    ATTRS = _quant_attrs()

    def infer_types(self) -> list[TensorType]:
        x, w, *bias = self.operand_types
        if x.rank < 1 or w.rank != 2 or x.shape[-1] != w.shape[1]:
            raise self.fail(f"needs x[..., K] and w[N, K], got {x} and {w}")
        if w.shape[1] > MAX_QK:
            raise self.fail(f"K = {w.shape[1]} could overflow the int32 accumulators")
        self._check_quant(x, w, bias)
        out = self.attrs.get("out_dtype", DType.f32)
        return [TensorType(x.shape[:-1] + (w.shape[0],), out)]

    def reference(self, x, w, bias=None) -> torch.Tensor:
        q, xs, zp = self._activation(x)
        acc = torch.matmul(q.to(torch.int64) - zp, w.to(torch.int64).t())
        return requantize(self, acc, xs, bias, acc.dim() - 1)


def _conv_window_attrs() -> dict[str, AttrSpec]:
    return {**window_attrs(2), "groups": AttrSpec("int", default=1, min=1)}


@register_op
class QConv2dOp(_QuantContraction):
    """``cuvil.qconv2d(%x, %w, %b) {stride, padding, dilation, x_scale, ...}``: a 2-D
    convolution of u8 x[N, C, H, W] with i8 w[O, C, kh, kw] (groups 1, or depthwise:
    groups = C = O, w[C, 1, kh, kw]), the epilogue
    of the module docstring per output channel; ``layout`` orders an int8 result."""

    name = "cuvil.qconv2d"
    OPERANDS = ("input", "weight", "bias?")
    LAYOUTS = frozenset({"contiguous", "nhwc"})
    ATTRS = {
        **_conv_window_attrs(),
        **_quant_attrs(),
        "layout": AttrSpec("str", default=None, choices=("contiguous", "nhwc")),
    }

    def infer_types(self) -> list[TensorType]:
        x, w, *bias = self.operand_types
        if x.rank != 4 or w.rank != 4 or not x.is_static:
            raise self.fail(f"needs static rank-4 input and weight, got {x} and {w}")
        groups = self.attrs["groups"]
        depthwise = groups == x.shape[1] == w.shape[0] and w.shape[1] == 1
        if x.shape[1] != w.shape[1] * groups or (groups != 1 and not depthwise):
            raise self.fail(
                f"needs groups 1 and C = {w.shape[1]}, or a depthwise weight "
                f"[C, 1, kh, kw] with groups = C; got {x}, {w}, groups = {groups}"
            )
        if self.attrs.get("x_scale") is None:
            raise self.fail("a quantized convolution is static: it needs x_scale")
        if w.shape[1] * w.shape[2] * w.shape[3] > MAX_QK:
            raise self.fail(f"K of {w} could overflow the int32 accumulators")
        self._check_quant(x, w, bias)
        out = self.attrs.get("out_dtype", DType.f32)
        layout = self.attrs.get("layout") or "contiguous"
        if layout == "nhwc" and out not in (DType.u8, DType.i8):
            raise self.fail(f"an nhwc result is for u8/i8 results, not {out}")
        shape = ConvOp.infer_types(_FloatView(self, x, w))[0].shape
        return [TensorType(shape, out, layout)]

    def reference(self, x, w, bias=None) -> torch.Tensor:
        a = self.attrs
        q, xs, zp = self._activation(x)
        xd = q.to(torch.float64) - zp  # exact: |acc| < 2**31 < 2**53
        acc = (
            F.conv2d(
                xd,
                w.to(torch.float64),
                None,
                a["stride"],
                a["padding"],
                a["dilation"],
                a["groups"],
            )
            .round()
            .to(torch.int64)
        )
        return requantize(self, acc, xs, bias, 1).contiguous()


class _FloatView:
    """The output-size rule of cuvil.conv2d applied to qconv2d's operand types."""

    SPATIAL = 2

    def __init__(self, op: Operation, x: TensorType, w: TensorType) -> None:
        self.attrs = op.attrs
        self.operand_types = [x.with_dtype(DType.f32), w.with_dtype(DType.f32)]
        self.fail = op.fail
        self._spatial_out = lambda x, w: ConvOp._spatial_out(self, x, w)


def _check_bf16(op: Operation, x: TensorType, w: TensorType, bias: list) -> None:
    if x.dtype is not DType.f32 or w.dtype is not DType.bf16:
        raise op.fail(f"needs a float32 input and a bf16 weight, got {x} and {w}")
    if bias and (bias[0].dtype is not DType.f32 or bias[0].shape != (w.shape[0],)):
        raise op.fail(f"bias must be tensor<{w.shape[0]}xf32>, got {bias[0]}")


def _bf16(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.bfloat16).to(torch.float32)


@register_op
class LinearBf16Op(Operation):
    """``cuvil.linear_bf16(%x, %w, %b)``: bf16(x)[..., K] @ w[N, K]^T (bf16) + b, float32
    accumulation and result, then the optional clamp."""

    name = "cuvil.linear_bf16"
    OPERANDS = ("x", "weight", "bias?")
    TRAITS = _PURE
    ATTRS = clamp_attrs()

    def infer_types(self) -> list[TensorType]:
        x, w, *bias = self.operand_types
        if x.rank < 1 or w.rank != 2 or x.shape[-1] != w.shape[1]:
            raise self.fail(f"needs x[..., K] and w[N, K], got {x} and {w}")
        _check_bf16(self, x, w, bias)
        return [TensorType(x.shape[:-1] + (w.shape[0],), DType.f32)]

    def reference(self, x, w, bias=None) -> torch.Tensor:
        return _clamp(self, F.linear(_bf16(x), w.float(), bias))


@register_op
class Conv2dBf16Op(Operation):
    """``cuvil.conv2d_bf16(%x, %w, %b) {stride, ...}``: conv2d of bf16(x) with a bf16
    weight (groups 1), float32 accumulation and result, then the optional clamp."""

    name = "cuvil.conv2d_bf16"
    OPERANDS = ("input", "weight", "bias?")
    TRAITS = _PURE
    ATTRS = {**_conv_window_attrs(), **clamp_attrs()}

    def infer_types(self) -> list[TensorType]:
        x, w, *bias = self.operand_types
        if x.rank != 4 or w.rank != 4 or not x.is_static:
            raise self.fail(f"needs static rank-4 input and weight, got {x} and {w}")
        if self.attrs["groups"] != 1 or x.shape[1] != w.shape[1]:
            raise self.fail(f"needs groups 1 and C = {w.shape[1]}, got {x}")
        _check_bf16(self, x, w, bias)
        shape = ConvOp.infer_types(_FloatView(self, x, w))[0].shape
        return [TensorType(shape, DType.f32)]

    def reference(self, x, w, bias=None) -> torch.Tensor:
        a = self.attrs
        y = F.conv2d(
            _bf16(x), w.float(), bias, a["stride"], a["padding"], a["dilation"]
        )
        return _clamp(self, y)


@register_op
class MatmulBf16Op(Operation):
    """``cuvil.matmul_bf16(%a, %b)``: bf16(a) @ bf16(b) with float32 accumulation and
    result, batch dims broadcast as ``cuvil.matmul``."""

    name = "cuvil.matmul_bf16"
    OPERANDS = ("a", "b")
    TRAITS = _PURE

    def infer_types(self) -> list[TensorType]:
        return MatmulOp.infer_types(self)

    def reference(self, a, b) -> torch.Tensor:
        return torch.matmul(_bf16(a), _bf16(b))
