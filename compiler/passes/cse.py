"""``cse``: common-subexpression elimination.

Two pure ops with the same name, operands (in any order for commutative ops), attributes
and result types compute the same value: the later one is replaced by the earlier one.
Each replaced op is one action; the kept op's location gains the replaced one's.

Before::

    %a = cuvil.exp(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %b = cuvil.exp(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %c = cuvil.add(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>

After::

    %a = cuvil.exp(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %c = cuvil.add(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..ir.core import Function, Module, Operation, Trait
from ..ir.location import fuse
from .base import ModulePass, PassContext, main_functions
from .registry import register_pass
from .rewrite import replace_value

__all__ = ["CommonSubexpressionEliminationPass"]


def _attr_key(value):
    if isinstance(value, torch.Tensor):
        return ("dense", str(value.dtype), tuple(value.shape), _bytes(value))
    return value


def _bytes(t: torch.Tensor) -> bytes:
    # a fresh buffer: a 1-element expanded tensor is "contiguous" with stride 0, which
    # .view(torch.uint8) refuses
    flat = t.detach().reshape(-1)
    dense = torch.empty(flat.shape, dtype=flat.dtype).copy_(flat)
    return dense.view(torch.uint8).numpy().tobytes()


def op_key(op: Operation) -> tuple:
    ids = [id(v) for v in op.operands]
    if op.has_trait(Trait.COMMUTATIVE):
        ids.sort()
    attrs = tuple(sorted((k, _attr_key(v)) for k, v in op.attrs.items()))
    return (op.name, tuple(ids), attrs, tuple(r.type for r in op.results))


@register_pass
@dataclass(frozen=True)
class CommonSubexpressionEliminationPass(ModulePass):
    name = "cse"

    def apply(self, module: Module, ctx: PassContext) -> bool:
        return any([self._run(fn, ctx) for fn in main_functions(module)])

    def _run(self, fn: Function, ctx: PassContext) -> bool:
        seen: dict[tuple, Operation] = {}
        # the locations each kept op gains, fused once at the end: fusing per
        # replacement re-copies a growing FusedLoc (quadratic in a chain's repeats)
        gained: dict[int, tuple[Operation, list]] = {}
        for op in list(fn.ops):
            if not op.has_trait(Trait.PURE):
                continue
            key = op_key(op)
            first = seen.get(key)
            if first is None:
                seen[key] = op
                continue
            if not ctx.allow_action(f"replace {op.name} by an identical earlier op"):
                continue
            for old, new in zip(op.results, first.results, strict=True):
                replace_value(fn, old, new)
            gained.setdefault(id(first), (first, [first.loc]))[1].append(op.loc)
            fn.erase(op)
        for first, locs in gained.values():
            first.loc = fuse(*locs)
        return bool(gained)
