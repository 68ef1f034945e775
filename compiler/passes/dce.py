"""``dce``: dead-code elimination.

Removes pure ops none of whose results is used or returned, then drops fused bodies and
param declarations nothing refers to any more. Each erased op is one action.

Before::

    %0 = cuvil.exp(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = cuvil.relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %1

After::

    %1 = cuvil.relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %1
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.core import Function, Module, Trait
from ..ir.ops.constant import ParamOp
from ..ir.ops.fused import FusedOp
from .base import ModulePass, PassContext, main_functions
from .registry import register_pass
from .rewrite import is_output

__all__ = ["DeadCodeEliminationPass"]


@register_pass
@dataclass(frozen=True)
class DeadCodeEliminationPass(ModulePass):
    name = "dce"

    def apply(self, module: Module, ctx: PassContext) -> bool:
        changed = False
        for fn in main_functions(module):
            changed |= self._sweep(fn, ctx)
        _drop_unreferenced(module)
        return changed

    def _sweep(self, fn: Function, ctx: PassContext) -> bool:
        changed = False
        for op in reversed(list(fn.ops)):
            dead = all(not r.uses and not is_output(fn, r) for r in op.results)
            if (
                dead
                and op.has_trait(Trait.PURE)
                and ctx.allow_action(f"erase {op.name}")
            ):
                fn.erase(op)
                changed = True
        return changed


def _drop_unreferenced(module: Module) -> None:
    """Fused bodies and param declarations no op refers to (no semantic change)."""
    mains = main_functions(module)
    bodies = {
        op.attrs["body"].name
        for fn in mains
        for op in fn.ops
        if isinstance(op, FusedOp)
    }
    module.functions = [f for f in module.functions if f in mains or f.name in bodies]
    used = {
        op.symbol()
        for fn in module.functions
        for op in fn.ops
        if isinstance(op, ParamOp)
    }
    for name in [n for n in module.params if n not in used]:
        del module.params[name]
        module.param_data.pop(name, None)
