"""Broadcasting binary elementwise ops: arithmetic, comparisons (i1 result), logical.

Operands have one element type (the frontends insert ``cuvil.cast`` where torch would
promote) and broadcast NumPy-style; scalars are 0-d ``cuvil.constant`` operands. One small
class per op; ``BINARY_OPS`` indexes them by name.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..core import Operation, Trait, register_op
from ..types import DType, TensorType, broadcast_shapes
from .layout import ANY_LAYOUT

__all__ = ["BinaryOp", "CompareOp", "LogicalOp", "BINARY_OPS", "BIN", "layout_of"]

BIN = frozenset({Trait.PURE, Trait.ELEMENTWISE, Trait.BROADCASTING})
_COMMUTATIVE = BIN | {Trait.COMMUTATIVE}
_EPILOGUE = BIN | {Trait.EPILOGUE}  # also computable in a GEMM epilogue
_COMMUTATIVE_EPILOGUE = _COMMUTATIVE | {Trait.EPILOGUE}


def layout_of(op: Operation, types: list[TensorType]) -> str:
    """The one layout of the non-scalar operands (a verify error when they differ)."""
    layouts = {t.layout for t in types if t.rank > 0}
    if len(layouts) > 1:
        raise op.fail(f"operands have different layouts: {', '.join(sorted(layouts))}")
    return layouts.pop() if layouts else "contiguous"


class BinaryOp(Operation):
    """``%z = cuvil.add(%x, %y)``: broadcasting; x and y have one element type."""

    OPERANDS = ("lhs", "rhs")
    TRAITS = BIN
    LAYOUTS = ANY_LAYOUT
    FLOAT_ONLY = False
    FN: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]

    def result_dtype(self, dtype: DType) -> DType:
        return dtype

    def infer_types(self) -> list[TensorType]:
        a, b = self.operand_types
        if a.dtype is not b.dtype:
            raise self.fail(
                f"operand element types differ: {a} vs {b} (insert cuvil.cast)"
            )
        if self.FLOAT_ONLY and not a.dtype.is_float:
            raise self.fail(f"operands must be float tensors, got {a}")
        shape = broadcast_shapes(a.shape, b.shape)
        if shape is None:
            raise self.fail(f"shapes do not broadcast: {a} and {b}")
        layout = layout_of(self, [a, b])
        return [TensorType(shape, self.result_dtype(a.dtype), layout)]

    def reference(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return type(self).FN(a, b)


class CompareOp(BinaryOp):
    """``%m = cuvil.lt(%x, %y)``: broadcasting comparison, result i1."""

    def result_dtype(self, dtype: DType) -> DType:
        return DType.i1


class LogicalOp(BinaryOp):
    def infer_types(self) -> list[TensorType]:
        types = super().infer_types()
        if self.operand_types[0].dtype is not DType.i1:
            raise self.fail(f"operands must be i1, got {self.operand_types[0]}")
        return types


@register_op
class AddOp(BinaryOp):
    name = "cuvil.add"
    FN = staticmethod(torch.add)
    TRAITS = _COMMUTATIVE_EPILOGUE


@register_op
class SubOp(BinaryOp):
    name = "cuvil.sub"
    FN = staticmethod(torch.sub)
    TRAITS = _EPILOGUE


@register_op
class MulOp(BinaryOp):
    name = "cuvil.mul"
    FN = staticmethod(torch.mul)
    TRAITS = _COMMUTATIVE_EPILOGUE


@register_op
class DivOp(BinaryOp):
    name = "cuvil.div"
    FN = staticmethod(torch.div)
    TRAITS = _EPILOGUE
    FLOAT_ONLY = True


@register_op
class PowOp(BinaryOp):
    name = "cuvil.pow"
    FN = staticmethod(torch.pow)


@register_op
class MaximumOp(BinaryOp):
    name = "cuvil.maximum"
    FN = staticmethod(torch.maximum)
    TRAITS = _COMMUTATIVE_EPILOGUE


@register_op
class MinimumOp(BinaryOp):
    name = "cuvil.minimum"
    FN = staticmethod(torch.minimum)
    TRAITS = _COMMUTATIVE_EPILOGUE


@register_op
class EqOp(CompareOp):
    name = "cuvil.eq"
    FN = staticmethod(torch.eq)
    TRAITS = _COMMUTATIVE


@register_op
class NeOp(CompareOp):
    name = "cuvil.ne"
    FN = staticmethod(torch.ne)
    TRAITS = _COMMUTATIVE


@register_op
class LtOp(CompareOp):
    name = "cuvil.lt"
    FN = staticmethod(torch.lt)


@register_op
class LeOp(CompareOp):
    name = "cuvil.le"
    FN = staticmethod(torch.le)


@register_op
class GtOp(CompareOp):
    name = "cuvil.gt"
    FN = staticmethod(torch.gt)


@register_op
class GeOp(CompareOp):
    name = "cuvil.ge"
    FN = staticmethod(torch.ge)


@register_op
class LogicalAndOp(LogicalOp):
    name = "cuvil.logical_and"
    FN = staticmethod(torch.logical_and)
    TRAITS = _COMMUTATIVE


@register_op
class LogicalOrOp(LogicalOp):
    name = "cuvil.logical_or"
    FN = staticmethod(torch.logical_or)
    TRAITS = _COMMUTATIVE


BINARY_OPS: dict[str, type[BinaryOp]] = {
    op.name: op
    for op in [
        AddOp,
        SubOp,
        MulOp,
        DivOp,
        PowOp,
        MaximumOp,
        MinimumOp,
        EqOp,
        NeOp,
        LtOp,
        LeOp,
        GtOp,
        GeOp,
        LogicalAndOp,
        LogicalOrOp,
    ]
}
