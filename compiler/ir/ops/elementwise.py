"""Elementwise ops: unary math (``unary.py``), broadcasting binary ops and comparisons
(``binary.py``), and here where, clamp and cast.
"""

from __future__ import annotations

import torch

from ..attributes import AttrSpec
from ..core import Operation, register_op
from ..types import DType, TensorType, broadcast_shapes
from .binary import BIN, BINARY_OPS, BinaryOp, CompareOp, layout_of
from .layout import ANY_LAYOUT
from .unary import (
    EW,
    EW_EPILOGUE,
    UNARY_OPS,
    GeluOp,
    LeakyReluOp,
    LogicalNotOp,
    UnaryOp,
)

__all__ = [
    "UnaryOp",
    "BinaryOp",
    "CompareOp",
    "UNARY_OPS",
    "BINARY_OPS",
    "GeluOp",
    "LeakyReluOp",
    "LogicalNotOp",
    "WhereOp",
    "ClampOp",
    "CastOp",
]


@register_op
class WhereOp(Operation):
    """``%z = cuvil.where(%cond, %x, %y)``: z = cond ? x : y, broadcasting all three."""

    name = "cuvil.where"
    OPERANDS = ("cond", "x", "y")
    TRAITS = BIN
    LAYOUTS = ANY_LAYOUT

    def infer_types(self) -> list[TensorType]:
        c, a, b = self.operand_types
        if c.dtype is not DType.i1:
            raise self.fail(f"condition must be i1, got {c}")
        if a.dtype is not b.dtype:
            raise self.fail(f"branch element types differ: {a} vs {b}")
        shape = broadcast_shapes(c.shape, a.shape, b.shape)
        if shape is None:
            raise self.fail(f"shapes do not broadcast: {c}, {a}, {b}")
        return [TensorType(shape, a.dtype, layout_of(self, [c, a, b]))]

    def reference(self, c, a, b) -> torch.Tensor:
        return torch.where(c, a, b)


@register_op
class ClampOp(Operation):
    """``cuvil.clamp(%x) {min = 0.0, max = 6.0}``: either bound may be absent, not both."""

    name = "cuvil.clamp"
    OPERANDS = ("x",)
    TRAITS = EW_EPILOGUE
    LAYOUTS = ANY_LAYOUT
    ATTRS = {
        "min": AttrSpec("scalar", default=None),
        "max": AttrSpec("scalar", default=None),
    }

    def infer_types(self) -> list[TensorType]:
        lo, hi = self.attrs.get("min"), self.attrs.get("max")
        if lo is None and hi is None:
            raise self.fail("needs a 'min' or a 'max' attribute")
        if lo is not None and hi is not None and lo > hi:
            raise self.fail(f"min {lo} is greater than max {hi}")
        return [self.operand_types[0]]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(x, self.attrs.get("min"), self.attrs.get("max"))


@register_op
class CastOp(Operation):
    """``cuvil.cast(%x) {dtype = f32}``: convert element type (torch ``.to(dtype)`` rules)."""

    name = "cuvil.cast"
    OPERANDS = ("x",)
    TRAITS = EW
    LAYOUTS = ANY_LAYOUT
    ATTRS = {"dtype": AttrSpec("dtype")}

    def infer_types(self) -> list[TensorType]:
        return [self.operand_types[0].with_dtype(self.attrs["dtype"])]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return x.to(self.attrs["dtype"].torch)
