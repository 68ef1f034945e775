"""The vectorizable exp/erf/tanh keep torch's float32 tolerance, NaN and the infinities."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import cuvil

EDGES = [
    float("nan"),
    float("inf"),
    -float("inf"),
    0.0,
    -0.0,
    1e-8,
    -1e-8,
    88.7,
    -87.3,
    -103.9,
    -104.5,
    89.0,
]


def _inputs() -> torch.Tensor:
    dense = torch.cat([torch.linspace(-110, 95, 20001), torch.linspace(-4, 4, 20001)])
    return torch.cat([dense, torch.tensor(EDGES)]).reshape(1, -1)


class Unary(nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


FUNCS = {
    "exp": torch.exp,
    "tanh": torch.tanh,
    "erf": torch.erf,
    "sigmoid": torch.sigmoid,
    "silu": F.silu,
    "gelu-tanh": lambda x: F.gelu(x, approximate="tanh"),
    "softmax": lambda x: torch.softmax(x[:, :-12], -1),
}


@pytest.mark.parametrize("opt", ["O0", "O3"])
@pytest.mark.parametrize("name", FUNCS)
def test_fast_math_matches_torch_within_float32_tolerance(name, opt):
    x = _inputs()
    model = Unary(FUNCS[name])
    got = cuvil.compile(model, [x], options={"opt_level": opt})(x)
    torch.testing.assert_close(got, model(x), rtol=1e-4, atol=1e-5, equal_nan=True)


def test_exp_relative_error_is_a_few_ulp():
    x = torch.linspace(-87, 88, 50001).reshape(1, -1)
    got = cuvil.compile(Unary(torch.exp), [x])(x).double()
    ref = x.double().exp()
    assert ((got - ref).abs() / ref).max().item() < 4e-7


def test_gelu_exact_matches_torch_on_finite_inputs():
    x = torch.linspace(-12, 12, 40001).reshape(1, -1)
    got = cuvil.compile(Unary(F.gelu), [x])(x)
    torch.testing.assert_close(got, F.gelu(x), rtol=1e-4, atol=1e-5)
