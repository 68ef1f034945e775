"""Gradients through the backend: Cuvil computes the forward, torch the backward.

Cuvil's native code has no autograd: its outputs have no ``grad_fn``. A graph dynamo
compiles while grad mode is on and an input or weight requires grad goes through
AOTAutograd instead (torch's own joint tracing and partitioning): the forward graph
(ATen ops, returning the outputs and the tensors the backward saves) is compiled by
Cuvil like any graph (runner.py: split around what it refuses, a build per shape), the
backward graph runs in torch, so gradients are torch's formulas on Cuvil's forward
values. The weights are inputs of that forward (they change every optimizer step), so
it is slower than the inference graph dynamo compiles under ``torch.no_grad()``.

Where AOTAutograd cannot trace a graph, or with ``options={"autograd": "error"}``, the
callable raises a clear error before the forward instead: never outputs that silently
lack a ``grad_fn``. Dynamo guards on grad mode and on ``requires_grad``, so the same model
under ``torch.no_grad()`` is another graph, compiled for inference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from ..errors import CuvilError
from ..frontend.provenance import node_loc

__all__ = ["needs_grad", "with_autograd", "refuse_grad", "AUTOGRAD_MODES"]

AUTOGRAD_MODES = ("aot", "error")


def needs_grad(example_inputs: Sequence[Any]) -> bool:
    """Whether the graph's outputs need a grad_fn."""
    return torch.is_grad_enabled() and any(
        isinstance(x, torch.Tensor) and x.requires_grad for x in example_inputs
    )


def with_autograd(
    gm: torch.fx.GraphModule,
    example_inputs: Sequence[Any],
    forward: Callable[[torch.fx.GraphModule, Sequence[Any]], Callable[..., Any]],
) -> Callable[..., Any]:
    """AOTAutograd with `forward(graph, inputs)` compiling the forward graph."""
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd

    def backward(bw_gm: torch.fx.GraphModule, _inputs: Sequence[Any]):
        return make_boxed_func(bw_gm.forward)

    backend = aot_autograd(fw_compiler=forward, bw_compiler=backward)
    try:
        return backend(gm, example_inputs)
    except CuvilError:
        raise
    except Exception as e:  # AOTAutograd cannot trace this graph: say so, clearly
        return refuse_grad(gm, f"torch's AOTAutograd failed on it: {type(e).__name__}")


def refuse_grad(gm: torch.fx.GraphModule, why: str | None = None) -> Callable[..., Any]:
    """A callable that raises before the forward: this call needs gradients."""
    names = [n.name for n in gm.graph.nodes if n.op == "placeholder" and _grad(n)]
    where = next(
        (node_loc(n).source() for n in gm.graph.nodes if node_loc(n).file), None
    )
    error = CuvilError(
        f"this call needs gradients ({_what(names)} require grad while grad mode is "
        "on) and the Cuvil backend does not compute them here"
        + (f": {why}" if why else ""),
        where=where,
        hint="call the model under torch.no_grad() or torch.inference_mode(), or "
        "model.requires_grad_(False); options={'autograd': 'aot'} (the default) "
        "computes the backward in torch",
    )

    def run(*args: Any) -> Any:
        raise error

    return run


def _grad(node: torch.fx.Node) -> bool:
    value = node.meta.get("example_value")
    return isinstance(value, torch.Tensor) and value.requires_grad


def _what(names: list[str]) -> str:
    weights = [n for n in names if "_parameters_" in n or "_buffers_" in n]
    if names and len(weights) == len(names):
        return f"{len(weights)} model weight(s)"
    return f"{len(names)} input(s) or weight(s)" if names else "its inputs"
