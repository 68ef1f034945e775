"""Lowering rules for activations built from other IR ops (hardswish, hardsigmoid), the
near-0-accurate ``log1p``/``expm1``, and library ops that are the identity in eval mode
(dropout variants, torchvision's ``stochastic_depth``)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..errors import UnsupportedOpError
from ..ir import ops
from ..ir.core import Value
from ..ir.types import DType
from .context import LoweringContext
from .lower_math import _unary
from .registry import LOWERINGS, aten, lowers

__all__ = ["hardsigmoid", "BY_NAME"]

lowers(torch.log1p, torch.special.log1p, "log1p", aten.log1p, aten.special_log1p)(
    _unary("cuvil.log1p")
)
lowers(torch.expm1, torch.special.expm1, "expm1", aten.expm1, aten.special_expm1)(
    _unary("cuvil.expm1")
)


def _opmath(cx: LoweringContext, x) -> tuple[Value, DType | None]:
    """(x in its compute dtype, the dtype to round back to): a half float is computed
    in float32 and rounded once, as torch's CPU kernels do (opmath; rounding after
    each step is up to a few half ulps off: fuzz 7020309)."""
    v = cx.value(x)
    if v.type.dtype in (DType.f16, DType.bf16):
        return cx.cast(v, DType.f32), v.type.dtype
    return v, None


def _back(cx: LoweringContext, out: Value, dtype: DType | None) -> Value:
    return out if dtype is None else cx.cast(out, dtype)


def hardsigmoid(cx: LoweringContext, x) -> Value:
    """relu6(x + 3) / 6, as torch computes it (a division, not a multiply by 1/6)."""
    v, back = _opmath(cx, x)
    shifted = cx.op("cuvil.add", v, cx.scalar(3.0, v.type.dtype))
    clamped = cx.emit(ops.ClampOp, shifted, min=0.0, max=6.0)
    return _back(cx, cx.op("cuvil.div", clamped, cx.scalar(6.0, v.type.dtype)), back)


@lowers(F.hardsigmoid, "hardsigmoid", aten.hardsigmoid)
def _hardsigmoid(cx: LoweringContext, x, inplace=False):
    return hardsigmoid(cx, x)


@lowers(F.hardswish, "hardswish", aten.hardswish)
def _hardswish(cx: LoweringContext, x, inplace=False):
    """x * relu6(x + 3) / 6: the product first, then the division, as torch does."""
    v, back = _opmath(cx, x)
    shifted = cx.op("cuvil.add", v, cx.scalar(3.0, v.type.dtype))
    clamped = cx.emit(ops.ClampOp, shifted, min=0.0, max=6.0)
    prod = cx.op("cuvil.mul", v, clamped)
    return _back(cx, cx.op("cuvil.div", prod, cx.scalar(6.0, v.type.dtype)), back)


# ---- the identity in eval mode ------------------------------------------------------------
def _eval_only(cx: LoweringContext, what: str, training: bool, p: float = 0.0) -> None:
    if training and p:
        raise UnsupportedOpError(
            f"{what} in training mode",
            node=cx.node_name,
            where=cx.where(),
            hint="call model.eval() before compiling",
        )


@lowers(
    F.feature_alpha_dropout, F.dropout3d, torch.feature_dropout, torch.alpha_dropout
)
def _dropout_variant(cx: LoweringContext, x, p=0.5, training=False, inplace=False):
    _eval_only(cx, "dropout", bool(training), float(p))
    return cx.value(x)


@lowers(aten.native_dropout)
def _native_dropout(cx: LoweringContext, x, p, train):
    _eval_only(cx, "native_dropout", bool(train), float(p))
    v = cx.value(x)  # (output, mask): the mask of an eval dropout keeps everything
    keep = torch.ones((), dtype=torch.bool)
    return v, cx.emit(ops.ExpandOp, cx.constant(keep), shape=v.type.shape)


def _stochastic_depth(cx: LoweringContext, x, p, mode, training=True):
    """torchvision.ops.stochastic_depth: identity when not training (or p == 0)."""
    _eval_only(cx, f"stochastic_depth(mode={mode!r})", bool(training), float(p))
    return cx.value(x)


# library functions FX keeps as calls (``torch.fx.wrap``), found by their qualified name
# so that Cuvil does not import the library
BY_NAME = {
    "torchvision.ops.stochastic_depth.stochastic_depth": _stochastic_depth,
}
LOWERINGS.update(BY_NAME)
