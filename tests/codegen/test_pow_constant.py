"""pow by a constant exponent inside fused kernels: computed like ATen's pow-by-scalar
(x*x*x for 3, sqrt for 0.5, ...), so GPT-2's tanh-GELU vectorizes instead of calling
libm's pow per element, and still matches eager."""

from __future__ import annotations

import pytest
import torch
from torch import nn

import cuvil


class Power(nn.Module):
    def __init__(self, e: float) -> None:
        super().__init__()
        self.e = e

    def forward(self, x):
        return torch.tanh(torch.pow(x, self.e) * 0.5 + 1.0)


class NewGelu(nn.Module):  # transformers' gelu_new (GPT-2)
    def forward(self, x):
        inner = 0.7978845608028654 * (x + 0.044715 * torch.pow(x, 3.0))
        return 0.5 * x * (1.0 + torch.tanh(inner))


@pytest.mark.parametrize("e", [2.0, 3.0, 0.5, -0.5, -1.0, -2.0, 1.7])
def test_constant_exponents_match_eager(e):
    torch.manual_seed(0)
    x = torch.rand(3, 67) + 0.25  # positive: fractional exponents stay real
    model = Power(e).eval()
    compiled = cuvil.compile(model, [x])
    assert ("llvm.pow" in compiled.llvm_ir()) == (e == 1.7)
    torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-5)


def test_gpt2_gelu_matches_eager():
    x = torch.randn(4, 3072)
    compiled = cuvil.compile(NewGelu().eval(), [x])
    assert "llvm.pow" not in compiled.llvm_ir()
    torch.testing.assert_close(compiled(x), NewGelu()(x), rtol=1e-4, atol=1e-5)
