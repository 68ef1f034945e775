"""``fuse-elementwise``: chains and trees of elementwise ops become one ``cuvil.fused`` op.

Starting from each elementwise op (the root, last in program order), producers are pulled
into its group while they are elementwise, produce as many elements as the root, and are
used only inside the group. A group of two or more ops moves into a new body function
``@fused_N``; the op that replaces it takes the group's external inputs and has the
location ``fused[...]`` of its members. Codegen emits one loop for it. Each group is one
action.

Before::

    %a = cuvil.add(%x, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %r = cuvil.relu(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>

After::

    %r = cuvil.fused(%x, %b) {body = @fused_0} : (tensor<4x8xf32>, tensor<8xf32>) -> ...
    func @fused_0(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>) {
      %a = cuvil.add(%x, %b) ...
      %r = cuvil.relu(%a) ...
      return %r
    }

Options: ``max-ops`` bounds a group's size.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from ..ir.core import Module, Operation, Trait
from ..ir.ops.fused import FusedOp
from .base import ModulePass, PassContext, main_functions
from .outline import outline
from .registry import register_pass
from .rewrite import users

__all__ = ["FuseElementwisePass", "is_elementwise"]


def is_elementwise(op: Operation) -> bool:
    return (
        op.has_trait(Trait.ELEMENTWISE)
        and op.has_trait(Trait.PURE)
        and len(op.results) == 1
        and op.result.type.is_static
    )


@register_pass
@dataclass(frozen=True)
class FuseElementwisePass(ModulePass):
    name = "fuse-elementwise"
    max_ops: int = 32

    def apply(self, module: Module, ctx: PassContext) -> bool:
        changed = False
        for fn in main_functions(module):
            taken: set[int] = set()
            # program order, once: groups only pull producers of roots not yet
            # taken, and outlining keeps the order of the ops not taken
            position = {id(op): i for i, op in enumerate(fn.ops)}
            outputs = {id(v) for v in fn.outputs}
            for root in reversed(list(fn.ops)):
                if id(root) in taken or not is_elementwise(root):
                    continue
                group = self._grow(root, taken, position, outputs)
                if len(group) < 2:
                    continue
                taken.update(id(op) for op in group)
                names = "+".join(op.name.split(".")[1] for op in group)
                if ctx.allow_action(f"fuse {len(group)} elementwise ops ({names})"):
                    outline(module, fn, group, FusedOp)
                    changed = True
        return changed

    def _grow(
        self, root: Operation, taken: set[int], position: dict, outputs: set[int]
    ) -> list[Operation]:
        """The root and the producers that can join it, in program order."""
        members = {id(root): root}
        numel = root.result.type.numel()
        heap = [(-position[id(root)], id(root), root)]
        while heap and len(members) < self.max_ops:
            _, _, op = heapq.heappop(heap)
            for v in op.operands:
                p = v.owner
                if (
                    p is None
                    or id(p) in members
                    or id(p) in taken
                    or not is_elementwise(p)
                ):
                    continue
                if p.result.type.numel() != numel or id(p.result) in outputs:
                    continue
                if all(id(u) in members for u in users(p.result)):
                    members[id(p)] = p
                    heapq.heappush(heap, (-position[id(p)], id(p), p))
                    if len(members) >= self.max_ops:
                        break
        return sorted(members.values(), key=lambda op: position[id(op)])
