"""Ops with no operands whose value is known at compile time: params and inline constants."""

from __future__ import annotations

import torch

from ..attributes import AttrSpec
from ..core import Operation, Trait, register_op
from ..types import TensorType

__all__ = ["ParamOp", "ConstantOp", "INLINE_CONSTANT_LIMIT"]

# Constants up to this many elements are written inline in the IR text; larger ones become
# module params (their data lives beside the IR, like MLIR's dense_resource blobs).
INLINE_CONSTANT_LIMIT = 64

_CONST = frozenset({Trait.PURE, Trait.CONSTANT})


@register_op
class ParamOp(Operation):
    """``%w = cuvil.param() {name = @fc1.weight}``: reads a module-level param.

    The module declares ``param @fc1.weight : tensor<...>``; the result has that type.
    """

    name = "cuvil.param"
    TRAITS = _CONST
    ATTRS = {"name": AttrSpec("symbol")}
    declared_type: TensorType | None = (
        None  # set by whoever builds it, checked by the verifier
    )

    def infer_types(self) -> list[TensorType]:
        if self.results:
            return [self.results[0].type]
        if self.declared_type is None:
            raise self.fail(
                "param type unknown: build it with ParamOp.of(module, name)"
            )
        return [self.declared_type]

    @classmethod
    def of(cls, module, name: str, **kw) -> ParamOp:
        from ..attributes import SymbolRef

        op = cls.__new__(cls)
        op.declared_type = module.params[name]
        Operation.__init__(
            op, [], {"name": SymbolRef(name)}, [module.params[name]], **kw
        )
        return op


@register_op
class ConstantOp(Operation):
    """``%c = cuvil.constant() {value = dense<2.0> : tensor<f32>}``: a small inline tensor."""

    name = "cuvil.constant"
    TRAITS = _CONST
    ATTRS = {"value": AttrSpec("dense")}

    def infer_types(self) -> list[TensorType]:
        return [TensorType.of(self.attrs["value"])]

    def reference(self) -> torch.Tensor:
        return self.attrs["value"]
