"""max_pool's indices (return_indices=True, max_pool{1,2}d_with_indices) against eager:
the first maximum in scan order, the last NaN, a window of -inf keeping its first
in-bounds position, through padding, dilation, strides and ceil_mode; compiled to native
code with max_unpool2d (the indices' main use) as well."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_checks import FRONTENDS, check_lowering, randn
from torch import nn

import cuvil


@st.composite
def _pools(draw):
    rank = draw(st.sampled_from([1, 2]))
    k, s, d = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 2))
    p = draw(st.integers(0, k // 2))
    sizes = [draw(st.integers((k - 1) * d + 1, 7)) for _ in range(rank)]
    values = draw(st.sampled_from(["normal", "ties", "nan", "-inf"]))
    return rank, k, s, p, d, draw(st.booleans()), sizes, values


def _input(sizes, values, seed):
    x = torch.randn((2, 3, *sizes), generator=torch.Generator().manual_seed(seed))
    if values == "ties":
        x = x.round()
    elif values == "nan":
        x.view(-1)[::3] = math.nan
    elif values == "-inf":
        x.view(-1)[1::2] = -math.inf
    return x


@settings(max_examples=25, deadline=None)
@given(_pools(), st.integers(0, 2**16), st.sampled_from(FRONTENDS))
def test_indices_match_eager_on_drawn_pools(pool, seed, frontend):
    rank, k, s, p, d, ceil, sizes, values = pool
    fn = F.max_pool2d if rank == 2 else F.max_pool1d
    x = _input(sizes, values, seed)
    check_lowering(
        lambda t: fn(t, k, s, p, d, ceil, return_indices=True), [x], frontend
    )


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_only_the_values_read_computes_no_indices(frontend):
    module = check_lowering(
        lambda t: F.max_pool2d(t, 2, return_indices=True)[0],
        [randn(1, 2, 4, 4)],
        frontend,
    )
    assert all(op.name != "cuvil.where" for op in module.main.ops)


class PoolUnpool(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(3, 2, padding=1, return_indices=True)
        self.unpool = nn.MaxUnpool2d(3, 2, padding=1)

    def forward(self, x):
        y, i = self.pool(x)
        return self.unpool(y, i, output_size=x.shape[-2:]), i


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_pool_and_unpool_compile_and_match_eager(frontend):
    x = randn(2, 3, 7, 6)
    x[0, 0, :2, :2] = math.nan
    model = PoolUnpool().eval()
    cm = cuvil.compile(model, [x], options={"frontend": frontend})
    got, want = cm(x), model(x)
    torch.testing.assert_close(got[0], want[0], rtol=0, atol=0, equal_nan=True)
    assert torch.equal(got[1], want[1])


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_integer_pools_with_indices_run_in_the_interpreter(frontend):
    # max_pool1d's own kernel has no integers; with indices (what eager runs) it has:
    # the reference (the interpreter, O3's folding) crashed (fuzz 7300634)
    x = torch.arange(24).reshape(2, 3, 4) % 5
    check_lowering(lambda t: F.max_pool1d(t, 2, return_indices=True), [x], frontend)
    check_lowering(
        lambda t: F.max_pool1d(t.int(), 2, return_indices=True), [x], frontend
    )
