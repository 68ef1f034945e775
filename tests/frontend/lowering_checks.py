"""Shared helpers of the frontend tests: wrap functions as models, lower them with a
frontend, run the IR in the reference interpreter and compare with eager PyTorch."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn
from torch.utils._pytree import tree_flatten

from cuvil.frontend import lower
from cuvil.ir import Module
from cuvil.ir.interpreter import interpret
from cuvil.ir.types import DType

__all__ = [
    "FRONTENDS",
    "Fn",
    "wrap",
    "check_lowering",
    "randn",
    "positive",
    "randint",
    "mask",
]

FRONTENDS = ["fx", "export"]
RTOL, ATOL = 1e-5, 1e-6


class Fn(nn.Module):
    """A model whose forward applies `fn` to one input (FX cannot trace ``*args``)."""

    def __init__(self, fn: Callable) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


class Fn2(Fn):
    def forward(self, x, y):
        return self.fn(x, y)


class Fn3(Fn):
    def forward(self, x, y, z):
        return self.fn(x, y, z)


def wrap(fn: Callable, arity: int) -> nn.Module:
    return (Fn, Fn2, Fn3)[arity - 1](fn)


def check_lowering(
    model: nn.Module | Callable, inputs: Sequence[torch.Tensor], frontend: str
) -> Module:
    """Lower `model` (a module, or a function of the inputs), interpret it and assert it
    matches eager PyTorch: same number of outputs, dtypes, shapes and values."""
    if not isinstance(model, nn.Module):
        model = wrap(model, len(inputs))
    model.eval()
    with torch.no_grad():
        want = tree_flatten(model(*inputs))[0]
    module = lower(model, inputs, frontend=frontend)
    got = interpret(module, inputs)
    assert len(got) == len(want), f"{len(got)} outputs, eager gives {len(want)}"
    for t, w in zip(module.main.result_types, want, strict=True):
        assert t.dtype is DType.from_torch(w.dtype) and t.shape == tuple(w.shape), (
            t,
            w.shape,
        )
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w, rtol=RTOL, atol=ATOL, equal_nan=True)
    return module


_GEN = torch.Generator().manual_seed(0)


def randn(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(shape, generator=_GEN).to(dtype)


def positive(*shape: int) -> torch.Tensor:
    """Values in [0.1, 2.1): safe for log, sqrt, rsqrt and fractional powers."""
    return torch.rand(shape, generator=_GEN) * 2 + 0.1


def randint(
    *shape: int, high: int = 10, dtype: torch.dtype = torch.int64
) -> torch.Tensor:
    return torch.randint(0, high, shape, generator=_GEN).to(dtype)


def mask(*shape: int) -> torch.Tensor:
    return torch.rand(shape, generator=_GEN) > 0.5
