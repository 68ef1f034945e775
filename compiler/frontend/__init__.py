"""Frontends: capture a PyTorch model (torch.fx or torch.export) and lower it to Cuvil IR.

Every op keeps its provenance: FX node name, nn.Module path and the model's Python line.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from ..errors import FrontendError
from ..hooks import CompileHooks
from ..ir.core import Module
from ..ir.verifier import verify
from ..options import FRONTENDS
from .export import from_export
from .fx import from_fx
from .registry import LOWERINGS, lookup, lowers

__all__ = [
    "lower",
    "from_fx",
    "from_export",
    "LOWERINGS",
    "lowers",
    "lookup",
    "FRONTENDS",
]


def lower(
    model: torch.nn.Module,
    example_inputs: Sequence[torch.Tensor],
    frontend: str = "fx",
    hooks: CompileHooks | None = None,
    **kwargs,
) -> Module:
    """Capture `model` with the chosen frontend, lower it and verify the result
    (`hooks`: the frontend's seam, ``after_node``; see cuvil.hooks)."""
    if frontend not in FRONTENDS:
        raise FrontendError(
            f"unknown frontend '{frontend}'", hint=f"use one of {FRONTENDS}"
        )
    with torch.no_grad():
        fn = from_fx if frontend == "fx" else from_export
        module = fn(model, tuple(example_inputs), hooks=hooks, **kwargs)
    return verify(module)
