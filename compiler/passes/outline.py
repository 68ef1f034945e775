"""Outlining: move a group of ops into a new body function called by one ``cuvil.fused`` op.

The last op of the group (in program order) is its root: its result is the group's result;
every other member must be used only inside the group. The fused op takes the root's place.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ir.core import Function, Module, Operation, Value
from ..ir.location import fuse
from .rewrite import clone_op, fresh_function_name, replace_value

__all__ = ["outline"]


def outline(
    module: Module,
    fn: Function,
    group: Sequence[Operation],
    fused_cls,
    inputs: Sequence[Value] | None = None,
) -> Operation:
    """Replace `group` (in program order) by one fused op; returns the fused op.

    `inputs` fixes the order of the body's arguments (default: first use order).
    """
    root = group[-1]
    inside = {id(r) for op in group for r in op.results}
    if inputs is None:
        inputs = _external_inputs(group, inside)
    body = Function(fresh_function_name(module, "fused"))
    mapping: dict[int, Value] = {}
    for v in inputs:
        mapping[id(v)] = body.add_arg(v.type, v.name or "in")
    for op in group:
        copy = body.append(clone_op(op, [mapping[id(v)] for v in op.operands]))
        mapping.update(
            {id(a): b for a, b in zip(op.results, copy.results, strict=True)}
        )
    body.set_outputs([mapping[id(root.result)]])
    module.add_function(body)
    fused = fused_cls.of(
        body, list(inputs), fuse(*(op.loc for op in group)), name=root.result.name
    )
    replace_value(fn, root.result, fused.result)
    fn.replace_op(root, fused)  # O(1): no list search per group
    for op in reversed(group[:-1]):
        fn.erase(op)
    return fused


def _external_inputs(group: Sequence[Operation], inside: set[int]) -> list[Value]:
    seen: dict[int, Value] = {}
    for op in group:
        for v in op.operands:
            if id(v) not in inside:
                seen.setdefault(id(v), v)
    return list(seen.values())
