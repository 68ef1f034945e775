"""``torch.compile(model, backend="cuvil")``: a TorchDynamo backend over the same compiler.

Dynamo hands over an FX GraphModule and example inputs once per graph (a graph break
gives several graphs, with eager Python between them). For each graph the backend
returns a ``GraphRunner`` (runner.py): the module's weights become constants
(weights.py), the graph is compiled whole when Cuvil lowers every op, and split around
the ops it refuses otherwise (survey.py, split.py): those run eagerly, with a warning
naming each and its line, and everything else as Cuvil code. ``CUVIL_FALLBACK=0`` (or
``options={"fallback": "strict"}``) raises instead. A graph with symbolic sizes gets
one build per call shape. A call that needs gradients goes through AOTAutograd:
Cuvil compiles the forward, torch runs the backward (autograd.py). ``report()`` says
what ran where (records.py). Design and usage: docs/BACKEND.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import torch

from ..errors import CuvilError
from ..options import CompileOptions
from .autograd import AUTOGRAD_MODES, needs_grad, refuse_grad, with_autograd
from .records import Report, report, reset
from .runner import (
    MAX_WEIGHT_CHANGES,
    BackendWarning,
    EagerFallbackWarning,
    GraphRunner,
)

__all__ = [
    "cuvil_backend",
    "register",
    "report",
    "reset",
    "Report",
    "BackendWarning",
    "EagerFallbackWarning",
    "FALLBACK_ENV",
    "MAX_WEIGHT_CHANGES",
]

FALLBACK_ENV = "CUVIL_FALLBACK"
_MODES = {"partition": "partition", "1": "partition", "strict": "strict", "0": "strict"}


def cuvil_backend(
    gm: torch.fx.GraphModule, example_inputs: Sequence[Any], **options: Any
) -> Callable[..., Any]:
    """The backend: ``torch.compile(model, backend="cuvil", options={...})`` takes
    ``cuvil.compile``'s options, ``fallback`` ("partition", the default, or "strict")
    and ``autograd`` ("aot", the default, or "error")."""
    try:
        opts, strict, autograd = _parse(dict(options.get("options") or {}))
    except CuvilError as e:  # raised by the call: the user's error, not dynamo's
        return _raising(e)
    if not needs_grad(example_inputs):
        return GraphRunner(gm, example_inputs, opts, strict)
    if autograd == "error":
        return refuse_grad(gm)

    def forward(fw_gm: torch.fx.GraphModule, fw_inputs: Sequence[Any]):
        return GraphRunner(fw_gm, fw_inputs, opts, strict, autograd=True)

    return with_autograd(gm, example_inputs, forward)


def _parse(flat: dict[str, Any]) -> tuple[CompileOptions, bool, str]:
    strict = _mode(flat.pop("fallback", None)) == "strict"
    autograd = flat.pop("autograd", "aot")
    if autograd not in AUTOGRAD_MODES:
        raise CuvilError(
            f"option autograd={autograd!r} is not one of {AUTOGRAD_MODES}",
            hint="'aot': Cuvil computes the forward, torch the backward; 'error': "
            "raise when a call needs gradients",
        )
    return CompileOptions.parse(flat), strict, autograd


def _raising(error: CuvilError) -> Callable[..., Any]:
    def run(*args: Any) -> Any:
        raise error

    return run


def _mode(option: Any) -> str:
    """The fallback mode: the option, else $CUVIL_FALLBACK, else "partition"."""
    given, what = option, "option fallback"
    if given is None:
        given, what = (
            os.environ.get(FALLBACK_ENV, "").strip() or "partition",
            FALLBACK_ENV,
        )
    mode = _MODES.get(str(given).lower())
    if mode is None:
        raise CuvilError(
            f"{what}={given!r} is not a fallback mode",
            hint="'partition' (or 1, the default): ops Cuvil refuses run eagerly, the "
            "rest as Cuvil code; 'strict' (or 0): raise naming every refused op",
        )
    return mode


def register() -> None:
    """Register the backend by name (also done by the package's entry point)."""
    from torch._dynamo import list_backends, register_backend

    if "cuvil" not in list_backends(exclude_tags=()):
        register_backend(name="cuvil")(cuvil_backend)
