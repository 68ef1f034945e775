"""Unary elementwise ops: ``y[i] = f(x[i])`` (neg, relu, exp, ..., gelu, leaky_relu).

One small class per op (so ``grep 'class ExpOp'`` finds it); ``UNARY_OPS`` indexes the
1:1 math ops by name for the frontends and the tests.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

from ..attributes import AttrSpec
from ..core import Operation, Trait, register_op
from ..types import DType, TensorType
from .layout import ANY_LAYOUT

__all__ = ["UnaryOp", "UNARY_OPS", "GeluOp", "LeakyReluOp", "LogicalNotOp"]

EW = frozenset({Trait.PURE, Trait.ELEMENTWISE})
EW_EPILOGUE = EW | {Trait.EPILOGUE}  # also computable in a GEMM epilogue


class UnaryOp(Operation):
    """``%y = cuvil.exp(%x)``: y[i] = f(x[i]); same type as x."""

    OPERANDS = ("x",)
    TRAITS = EW
    LAYOUTS = ANY_LAYOUT
    FLOAT_ONLY = True
    FN: Callable[[torch.Tensor], torch.Tensor]

    def infer_types(self) -> list[TensorType]:
        (t,) = self.operand_types
        if self.FLOAT_ONLY and not t.dtype.is_float:
            raise self.fail(
                f"operand must be a float tensor, got {t} (insert cuvil.cast)"
            )
        return [t]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return type(self).FN(x)


@register_op
class NegOp(UnaryOp):
    name = "cuvil.neg"
    TRAITS = EW_EPILOGUE
    FN = staticmethod(torch.neg)
    FLOAT_ONLY = False


@register_op
class AbsOp(UnaryOp):
    name = "cuvil.abs"
    TRAITS = EW_EPILOGUE
    FN = staticmethod(torch.abs)
    FLOAT_ONLY = False


@register_op
class ReluOp(UnaryOp):
    name = "cuvil.relu"
    TRAITS = EW_EPILOGUE
    FN = staticmethod(torch.relu)
    FLOAT_ONLY = False


@register_op
class ExpOp(UnaryOp):
    name = "cuvil.exp"
    TRAITS = EW_EPILOGUE
    FN = staticmethod(torch.exp)


@register_op
class LogOp(UnaryOp):
    name = "cuvil.log"
    FN = staticmethod(torch.log)


@register_op
class SqrtOp(UnaryOp):
    name = "cuvil.sqrt"
    FN = staticmethod(torch.sqrt)


@register_op
class RsqrtOp(UnaryOp):
    name = "cuvil.rsqrt"
    FN = staticmethod(torch.rsqrt)


@register_op
class TanhOp(UnaryOp):
    name = "cuvil.tanh"
    TRAITS = EW_EPILOGUE
    FN = staticmethod(torch.tanh)


@register_op
class SigmoidOp(UnaryOp):
    name = "cuvil.sigmoid"
    TRAITS = EW_EPILOGUE
    FN = staticmethod(torch.sigmoid)


@register_op
class ErfOp(UnaryOp):
    name = "cuvil.erf"
    TRAITS = EW_EPILOGUE
    FN = staticmethod(torch.erf)


@register_op
class SinOp(UnaryOp):
    name = "cuvil.sin"
    FN = staticmethod(torch.sin)


@register_op
class CosOp(UnaryOp):
    name = "cuvil.cos"
    FN = staticmethod(torch.cos)


@register_op
class ReciprocalOp(UnaryOp):
    name = "cuvil.reciprocal"
    FN = staticmethod(torch.reciprocal)


@register_op
class SiluOp(UnaryOp):
    name = "cuvil.silu"
    TRAITS = EW_EPILOGUE
    FN = staticmethod(F.silu)


@register_op
class FloorOp(UnaryOp):
    name = "cuvil.floor"
    FN = staticmethod(torch.floor)


@register_op
class CeilOp(UnaryOp):
    name = "cuvil.ceil"
    FN = staticmethod(torch.ceil)


# log(1 + x) and exp(x) - 1 lose every digit near 0 when composed; these keep them
@register_op
class Log1pOp(UnaryOp):
    name = "cuvil.log1p"
    FN = staticmethod(torch.log1p)


@register_op
class Expm1Op(UnaryOp):
    name = "cuvil.expm1"
    FN = staticmethod(torch.expm1)


UNARY_OPS: dict[str, type[UnaryOp]] = {
    op.name: op
    for op in [
        NegOp,
        AbsOp,
        ReluOp,
        ExpOp,
        LogOp,
        SqrtOp,
        RsqrtOp,
        TanhOp,
        SigmoidOp,
        ErfOp,
        SinOp,
        CosOp,
        ReciprocalOp,
        SiluOp,
        FloorOp,
        CeilOp,
        Log1pOp,
        Expm1Op,
    ]
}


@register_op
class GeluOp(UnaryOp):
    """``cuvil.gelu(%x) {approximate = "none"|"tanh"}``."""

    name = "cuvil.gelu"
    TRAITS = EW_EPILOGUE
    ATTRS = {"approximate": AttrSpec("str", default="none", choices=("none", "tanh"))}

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x, approximate=self.attrs["approximate"])


@register_op
class LeakyReluOp(UnaryOp):
    """``cuvil.leaky_relu(%x) {negative_slope = 0.01}``."""

    name = "cuvil.leaky_relu"
    TRAITS = EW_EPILOGUE
    ATTRS = {"negative_slope": AttrSpec("float", default=0.01)}

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return F.leaky_relu(x, self.attrs["negative_slope"])


@register_op
class LogicalNotOp(UnaryOp):
    """``cuvil.logical_not(%m)``: i1 -> i1."""

    name = "cuvil.logical_not"
    FN = staticmethod(torch.logical_not)

    def infer_types(self) -> list[TensorType]:
        (t,) = self.operand_types
        if t.dtype is not DType.i1:
            raise self.fail(f"operand must be i1, got {t}")
        return [t]
