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
from .auto import Captured, lower_auto
from .export import from_export
from .fx import from_fx
from .registry import LOWERINGS, lookup, lowers

__all__ = [
    "lower",
    "capture",
    "Captured",
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
    return capture(model, example_inputs, frontend, hooks, **kwargs).module


def capture(
    model: torch.nn.Module,
    example_inputs: Sequence[torch.Tensor],
    frontend: str = "fx",
    hooks: CompileHooks | None = None,
    **kwargs,
) -> Captured:
    """``lower``, also saying which frontend produced the IR ("auto": export, then fx;
    frontend/auto.py) and why the other one was not used."""
    if frontend not in FRONTENDS:
        raise FrontendError(
            f"unknown frontend '{frontend}'", hint=f"use one of {FRONTENDS}"
        )

    def run(name: str) -> Module:
        with torch.no_grad():
            fn = from_fx if name == "fx" else from_export
            return verify(fn(model, tuple(example_inputs), hooks=hooks, **kwargs))

    if frontend == "auto":
        return lower_auto(model, example_inputs, run)
    return Captured(run(frontend), frontend)
