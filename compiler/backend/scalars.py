"""Sizes and Python numbers a symbolic graph takes, bound to one call's values.

With ``dynamic=True`` dynamo passes sizes as SymInt inputs and the Python numbers the
model reads (``eps`` of a LayerNorm, a scale) as 0-d tensors that the graph turns back
into numbers with ``.item()`` (the placeholder's ``grapharg.pass_arg_as_tensor``).
Cuvil's kernels are static, so both become constants of a build: the runner keys its
builds by their values (the numbers rarely change), and ``bind`` folds them into a copy
of the graph (sizes: frontend/specialize.py; the ``.item()`` of a number: here).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
import torch.fx

from ..frontend.specialize import bind_sizes

__all__ = ["scalar_inputs", "bind"]


def scalar_inputs(gm: torch.fx.GraphModule) -> set[int]:
    """Indices of the inputs that are Python numbers passed as 0-d tensors."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    return {
        i
        for i, n in enumerate(placeholders)
        if getattr(n.meta.get("grapharg"), "pass_arg_as_tensor", False) is True
    }


def bind(gm: torch.fx.GraphModule, args: Sequence[Any]) -> torch.fx.GraphModule:
    """`gm` with its non-tensor inputs replaced by `args`' values, and the
    ``.item()`` of each such number by the number."""
    bound = bind_sizes(gm, args)
    changed = False
    for node in list(bound.graph.nodes):
        if (
            node.op == "call_method"
            and node.target == "item"
            and isinstance(node.args[0], (int, float, bool))
        ):
            node.replace_all_uses_with(node.args[0])
            bound.graph.erase_node(node)
            changed = True
    if changed:
        bound.recompile()
    return bound
