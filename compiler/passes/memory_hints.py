"""``memory-hints``: mark elementwise ops whose result may reuse an operand's memory.

An elementwise op (or an elementwise ``cuvil.fused`` kernel) reads each element before it
writes the same element, so when an operand of the result's exact type dies at this op its
buffer can hold the result: fewer live buffers, a smaller arena, warmer caches. The pass
only adds the hint ``inplace = i``; the verifier checks it (operand i has the result's type,
no later use, is no output) and code generation uses it when the operand's buffer is its own
(not a model input, a param, or a buffer some reshape still reads). One action per hint.

Before::

    %0 = cuvil.exp(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = cuvil.relu(%0) : (tensor<4xf32>) -> tensor<4xf32>
    return %1

After::

    %0 = cuvil.exp(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = cuvil.relu(%0) {inplace = 0} : (tensor<4xf32>) -> tensor<4xf32>
    return %1
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.core import Function, Module, Operation, Trait
from ..ir.ops.constant import ConstantOp, ParamOp
from ..ir.ops.fused import FusedOp
from .base import ModulePass, PassContext, main_functions
from .registry import register_pass

__all__ = ["MemoryHintsPass"]


@register_pass
@dataclass(frozen=True)
class MemoryHintsPass(ModulePass):
    name = "memory-hints"

    def apply(self, module: Module, ctx: PassContext) -> bool:
        changed = False
        for fn in main_functions(module):
            changed |= self._mark(module, fn, ctx)
        return changed

    def _mark(self, module: Module, fn: Function, ctx: PassContext) -> bool:
        position = {id(op): i for i, op in enumerate(fn.ops)}
        outputs = {id(v) for v in fn.outputs}
        changed = False
        for i, op in enumerate(fn.ops):
            if "inplace" in op.attrs or not _elementwise(module, op):
                continue
            for j, v in enumerate(op.operands):
                if (
                    _dies_here(v, i, position, outputs)
                    and v.type == op.result.type
                    and _owned(v)
                    and ctx.allow_action(f"{op.name} reuses operand {j}")
                ):
                    op.attrs["inplace"] = j
                    changed = True
                    break
        return changed


def _elementwise(module: Module, op: Operation) -> bool:
    if len(op.results) != 1 or not op.accepts_inplace():
        return False
    if isinstance(op, FusedOp):
        body = module.lookup(op.attrs["body"].name)
        return body is not None and all(
            b.has_trait(Trait.ELEMENTWISE) for b in body.ops
        )
    return True


def _dies_here(v, i: int, position: dict, outputs: set) -> bool:
    """No later use, no output, and read once by this op (x + x may not write over x)."""
    uses_here = sum(1 for user, _ in v.uses if position[id(user)] == i)
    return (
        id(v) not in outputs
        and uses_here == 1
        and all(position[id(user)] <= i for user, _ in v.uses)
    )


def _owned(v) -> bool:
    """Computed by a kernel (not a model input, a param or an inline constant)."""
    return v.owner is not None and not isinstance(v.owner, (ParamOp, ConstantOp))
