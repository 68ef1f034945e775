"""``cuvil.relayout``: the only op that changes a tensor's layout (its memory order).

Types carry a layout name (``tensor<1x64x56x56xf32, nhwc>``); the shape is always the
logical one. Layout passes put a relayout at each boundary of a region they convert.
"""

from __future__ import annotations

import torch

from ..attributes import AttrSpec
from ..core import Operation, Trait, register_op
from ..types import LAYOUTS as LAYOUT_NAMES
from ..types import TensorType

__all__ = ["RelayoutOp", "ANY_LAYOUT"]

#: ``Operation.LAYOUTS`` of ops that are defined on every layout (elementwise ops ...)
ANY_LAYOUT = frozenset(LAYOUT_NAMES)


@register_op
class RelayoutOp(Operation):
    """``%y = cuvil.relayout(%x) {layout = "nhwc"}``: the same values in another layout.

    The result has x's logical shape and element type and the given layout. On values it is
    the identity (the interpreter works on logical tensors); code generation copies the
    buffer from x's memory order to the result's.
    """

    name = "cuvil.relayout"
    OPERANDS = ("x",)
    TRAITS = frozenset({Trait.PURE})
    ATTRS = {"layout": AttrSpec("str", choices=tuple(LAYOUT_NAMES))}
    LAYOUTS = ANY_LAYOUT

    def infer_types(self) -> list[TensorType]:
        (x,) = self.operand_types
        return [TensorType(x.shape, x.dtype, self.attrs["layout"])]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return x.clone()
