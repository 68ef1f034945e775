"""``cuvil.torch.compile``: the seed documents' spelling of ``cuvil.compile``.

    model = cuvil.torch.compile(model, target="cpu", quantize="int8",
                                enable_fusion=True, calibration_data=batches)
    y = model(x)                     # compiled for x's shapes on the first call

Keyword options (``enable_fusion``, ``opt_level``, ``num_threads`` ...) are
``cuvil.compile``'s option keys. Without ``inputs``, the model is compiled on its first
call, for the shapes of that call, and again for each new input signature (one
compiled build per signature, kept). With ``inputs`` it is compiled at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from .errors import CuvilError
from .pipeline import compile as _compile

__all__ = ["compile", "TorchCompiled"]


class TorchCompiled:
    """A model compiled per input signature on first use (``cuvil.torch.compile``)."""

    def __init__(self, model: torch.nn.Module, target: str, kwargs: dict[str, Any]):
        if not isinstance(model, torch.nn.Module):
            raise CuvilError(
                f"model must be a torch.nn.Module, got {type(model).__name__}"
            )
        self.model, self.target, self._kwargs = model, target, kwargs
        self.builds: dict[tuple, Any] = {}

    def compiled_for(self, inputs: Sequence[torch.Tensor]):
        key = tuple((tuple(t.shape), t.dtype) for t in inputs)
        if key not in self.builds:
            kw = dict(self._kwargs)
            self.builds[key] = _compile(self.model, list(inputs), self.target, **kw)
        return self.builds[key]

    def __call__(self, *inputs: torch.Tensor):
        return self.compiled_for(inputs)(*inputs)


def compile(
    model: torch.nn.Module,
    target: str = "cpu",
    *,
    inputs: Sequence[torch.Tensor] | None = None,
    quantize: Any = None,
    calibration_data: Sequence[Any] | None = None,
    hooks=None,
    **options: Any,
):
    """``cuvil.compile`` with the options as keywords; compiled now with `inputs`,
    else on the first call (a TorchCompiled)."""
    kwargs = {
        "options": options,
        "hooks": hooks,
        "quantize": quantize,
        "calibration_data": calibration_data,
    }
    if inputs is not None:
        return _compile(model, list(inputs), target, **kwargs)
    return TorchCompiled(model, target, kwargs)
