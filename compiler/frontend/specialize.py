"""A torch.compile graph with symbolic sizes, specialized to one call's concrete sizes.

With ``dynamic=True`` TorchDynamo hands the backend graphs whose placeholders include
the sizes (SymInt inputs, Python ints at call time) and whose tensors have symbolic
shapes. Cuvil's kernels are static, so the backend compiles one build per call shape
(runtime/dynamic.py): ``bind_sizes`` makes a copy of the graph whose int placeholders
are those ints, constant, and whose remaining inputs are the tensors.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import torch
import torch.fx
from torch.fx.node import map_arg

__all__ = ["bind_sizes", "is_symbolic"]


def is_symbolic(x: Any) -> bool:
    """A SymInt/int graph input, or a tensor with a symbolic size."""
    if isinstance(x, torch.Tensor):
        return any(isinstance(d, torch.SymInt) for d in x.shape)
    return isinstance(x, (int, float, bool, torch.SymInt, torch.SymFloat))


def bind_sizes(gm: torch.fx.GraphModule, args: Sequence[Any]) -> torch.fx.GraphModule:
    """`gm` with each non-tensor placeholder replaced by the value `args` gives it."""
    graph = copy.deepcopy(gm.graph)
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    for node, value in zip(placeholders, args):
        if isinstance(value, torch.Tensor):
            continue
        for user in list(node.users):
            user.args = map_arg(
                user.args, lambda n, v=value, p=node: v if n is p else n
            )
            user.kwargs = map_arg(
                user.kwargs, lambda n, v=value, p=node: v if n is p else n
            )
        graph.erase_node(node)
    for node in graph.nodes:
        node.meta.pop("tensor_meta", None)  # symbolic facts of the traced shapes
    graph.lint()
    return torch.fx.GraphModule(gm, graph, gm.__class__.__name__)


def split_outputs(
    gm: torch.fx.GraphModule, tensors: Sequence[torch.Tensor]
) -> tuple[torch.fx.GraphModule, list[Any] | None]:
    """Dynamo's graphs may also return sizes (ints): these are fixed by the call's
    shapes. Returns the graph with tensor outputs only and the full output template
    (None where a tensor goes; None as a whole: nothing was removed)."""
    out = next(n for n in gm.graph.nodes if n.op == "output")
    flat = out.args[0]
    if not isinstance(flat, (tuple, list)):
        return gm, None
    kinds = [_is_tensor(v) for v in flat]
    if all(kinds):
        return gm, None
    with torch.no_grad():
        values = gm(*tensors)
    template = [None if k else v for k, v in zip(kinds, values)]
    out.args = (tuple(v for k, v in zip(kinds, flat) if k),)
    gm.recompile()
    return gm, template


def _is_tensor(v: Any) -> bool:
    if not isinstance(v, torch.fx.Node):
        return False
    val = v.meta.get("example_value", v.meta.get("val"))
    return isinstance(val, torch.Tensor) or val is None and v.op != "call_function"
