"""``torch.compile(model, backend="cuvil")``: a TorchDynamo backend over the same compiler.

Dynamo hands over an FX GraphModule and example inputs (parameters arrive as inputs). The
graph is lowered with the FX frontend and compiled; if Cuvil cannot compile it, the backend
raises (set ``CUVIL_FALLBACK=1`` to run the graph eagerly instead, with a warning).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import torch

from .errors import CuvilError
from .frontend.fx import from_fx
from .options import CompileOptions
from .pipeline import compile_module

__all__ = ["cuvil_backend", "register"]


def cuvil_backend(
    gm: torch.fx.GraphModule, example_inputs: Sequence[Any], **options: Any
) -> Callable[..., Any]:
    opts = CompileOptions.parse(options.get("options"))
    try:
        if not all(isinstance(x, torch.Tensor) for x in example_inputs):
            raise CuvilError(
                "the graph takes non-tensor inputs (dynamic shapes), "
                "which Cuvil does not compile yet",
                hint="use torch.compile(..., dynamic=False)",
            )
        with torch.no_grad():
            module = from_fx(gm, list(example_inputs), gm=gm)
        compiled = compile_module(module, opts)
    except CuvilError as e:
        if os.environ.get("CUVIL_FALLBACK") == "1":
            warnings.warn(f"cuvil: running the graph eagerly: {e}", stacklevel=2)
            return gm.forward
        raise

    def run(*args: torch.Tensor):
        out = compiled(*args)
        return out if isinstance(out, (tuple, list)) else (out,)

    return run


def register() -> None:
    """Register the backend by name (also done by the package's entry point)."""
    from torch._dynamo import list_backends, register_backend

    if "cuvil" not in list_backends(exclude_tags=()):
        register_backend(name="cuvil")(cuvil_backend)
