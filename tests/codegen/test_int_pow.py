"""Integer pow in native code, exactly as torch: square-and-multiply wrapping on
overflow, negative exponents (0, or +-1 for bases +-1), uint8's unsigned exponents;
vectorized at O3 as well as scalar at O0."""

from __future__ import annotations

import pytest
import torch
from torch import nn

import cuvil


class _Pow(nn.Module):
    def forward(self, x, y):
        return x**y, torch.pow(x, 3), torch.pow(2, y.abs() % 8)


def _grid(dtype):
    signed = dtype is not torch.uint8
    bases = list(range(-5 if signed else 0, 6)) + [127, 100 if signed else 255]
    exps = list(range(-3 if signed else 0, 9)) + [31, 62, 63, 33 if signed else 200]
    pairs = [(a, e) for a in bases for e in exps]
    x = torch.tensor([a for a, _ in pairs]).to(dtype)
    return x, torch.tensor([e for _, e in pairs]).to(dtype)


@pytest.mark.parametrize("opt", ["O0", "O3"])
@pytest.mark.parametrize("dtype", [torch.int64, torch.int8, torch.uint8])
def test_integer_pow_matches_eager_bit_for_bit(dtype, opt):
    x, y = _grid(dtype)
    got = cuvil.compile(_Pow(), [x, y], options={"opt_level": opt})(x, y)
    for g, w in zip(got, _Pow()(x, y), strict=True):
        assert g.dtype == w.dtype and torch.equal(g, w)
