"""``fold-constants``: evaluate pure ops whose operands are all known at compile time.

An op whose operands are ``cuvil.constant``s (or ``cuvil.param``s with data) is run with
its reference semantics at compile time. A result of at most 64 elements becomes an inline
``cuvil.constant``; a larger one a new param (``@<name>.folded``). Each folded op is one
action; the new op keeps the folded op's location.

Before::

    %c = cuvil.constant() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
    %d = cuvil.mul(%c, %c) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %y = cuvil.add(%x, %d) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>

After::

    %c = cuvil.constant() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
    %d = cuvil.constant() {value = dense<4.0> : tensor<f32>} : () -> tensor<f32>
    %y = cuvil.add(%x, %d) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..ir.core import Function, Module, Operation, Trait, Value
from ..ir.ops.constant import INLINE_CONSTANT_LIMIT, ConstantOp, ParamOp
from ..ir.ops.fused import FusedOp
from ..ir.types import TensorType
from .base import ModulePass, PassContext, main_functions
from .registry import register_pass
from .rewrite import fresh_param_name, insert_before, replace_value

__all__ = ["FoldConstantsPass", "known_value"]


def known_value(module: Module, v: Value) -> torch.Tensor | None:
    """The compile-time tensor of a value defined by a constant or a param with data."""
    op = v.owner
    if isinstance(op, ConstantOp):
        return op.attrs["value"]
    if isinstance(op, ParamOp):
        return module.param_data.get(op.symbol())
    return None


@register_pass
@dataclass(frozen=True)
class FoldConstantsPass(ModulePass):
    """Options: ``max-elements``: do not fold ops whose result is larger (memory bound)."""

    name = "fold-constants"
    max_elements: int = 1 << 22

    def apply(self, module: Module, ctx: PassContext) -> bool:
        return any([self._run(module, fn, ctx) for fn in main_functions(module)])

    def _run(self, module: Module, fn: Function, ctx: PassContext) -> bool:
        changed = False
        for op in list(fn.ops):
            values = self._foldable(module, op)
            if values is None or not ctx.allow_action(f"fold {op.name} to a constant"):
                continue
            with torch.no_grad():
                out = op.reference(*values)
            replacement = _materialize(module, op, out.contiguous())
            insert_before(fn, op, replacement)
            replace_value(fn, op.result, replacement.result)
            fn.erase(op)
            changed = True
        return changed

    def _foldable(self, module: Module, op: Operation) -> list[torch.Tensor] | None:
        if (
            op.has_trait(Trait.CONSTANT)
            or not op.has_trait(Trait.PURE)
            or isinstance(op, FusedOp)
            or len(op.results) != 1
            or not op.operands
        ):
            return None
        t = op.result.type
        if (
            t.layout != "contiguous"
            or (t.numel() or 0) > self.max_elements
            or not t.is_static
        ):
            return None
        values = [known_value(module, v) for v in op.operands]
        return None if any(v is None for v in values) else values


def _materialize(module: Module, op: Operation, data: torch.Tensor) -> Operation:
    if TensorType.of(data) != op.result.type:
        data = data.to(op.result.type.dtype.torch).reshape(
            [int(d) for d in op.result.type.shape]
        )
    name = op.result.name
    if data.numel() <= INLINE_CONSTANT_LIMIT:
        return ConstantOp([], {"value": data}, [op.result.type], op.loc, [name])
    param = fresh_param_name(module, f"{name or 'const'}.folded")
    module.add_param(param, data)
    return ParamOp.of(module, param, loc=op.loc)
