"""Gradients through the backend: refused before the forward, never silently lost.

Cuvil's native code is inference code: its outputs have no ``grad_fn``. A graph dynamo
compiles while grad mode is on and an input or weight requires grad would give outputs
whose ``backward()`` fails far from the cause, so the backend returns a callable that
raises first, with the fix. Dynamo guards on grad mode and on ``requires_grad``: the
same model under ``torch.no_grad()`` or ``torch.inference_mode()`` is another graph,
compiled normally.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from ..errors import CuvilError
from ..frontend.provenance import node_loc

__all__ = ["needs_grad", "refuse_grad"]


def needs_grad(example_inputs: Sequence[Any]) -> bool:
    """Whether the graph's outputs would need a grad_fn."""
    return torch.is_grad_enabled() and any(
        isinstance(x, torch.Tensor) and x.requires_grad for x in example_inputs
    )


def refuse_grad(gm: torch.fx.GraphModule) -> Callable[..., Any]:
    names = [n.name for n in _placeholders(gm) if _grad_input(n)]
    where = next(
        (node_loc(n).source() for n in gm.graph.nodes if node_loc(n).file), None
    )
    error = CuvilError(
        "torch.compile(backend='cuvil') compiles inference only, and this call needs "
        f"gradients ({_what(names)} require grad while grad mode is on)",
        where=where,
        hint="call the model under torch.no_grad() or torch.inference_mode(), or "
        "model.requires_grad_(False); for training use torch.compile's default backend",
    )

    def run(*args: Any) -> Any:
        raise error

    return run


def _placeholders(gm: torch.fx.GraphModule) -> list[torch.fx.Node]:
    return [n for n in gm.graph.nodes if n.op == "placeholder"]


def _grad_input(node: torch.fx.Node) -> bool:
    value = node.meta.get("example_value")
    return isinstance(value, torch.Tensor) and value.requires_grad


def _what(names: list[str]) -> str:
    if not names:
        return "its inputs"
    weights = [n for n in names if "_parameters_" in n or "_buffers_" in n]
    if weights and len(weights) == len(names):
        return f"{len(weights)} model weight(s)"
    return f"{len(names)} input(s) or weight(s)"
