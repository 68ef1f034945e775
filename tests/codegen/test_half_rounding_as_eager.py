"""16-bit float ops rounded where torch's CPU kernels round (fuzz issue 22, docs/FUZZ.md):
exact against eager, not only within the half tolerance the fuzz judge allows (a
judge with a float64 reference accepts the once-rounded answer too, so the regression
samples alone would not hold these)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from lowering_checks import wrap

import cuvil

DTYPES = [torch.float16, torch.bfloat16]


def _exact(fn, *inputs):
    model = wrap(fn, len(inputs)).eval()
    with torch.no_grad():
        want = model(*inputs)
        got = cuvil.compile(model, list(inputs), options={"opt_level": "O3"})(*inputs)
    for c, e in zip(got, want, strict=True):
        assert c.dtype == e.dtype
        assert torch.equal(c.isnan(), e.isnan())
        assert torch.equal(c.nan_to_num(0), e.nan_to_num(0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_log_softmax_over_the_last_dim_rounds_the_sum_and_its_log(dtype):
    """fuzz 7021057: torch keeps the row's sum of exponentials and its log in the
    input's dtype over the last dim; rounding once is several bf16 ulps off."""
    g = torch.Generator().manual_seed(0)
    x = (torch.randn(9, 33, generator=g) * 3).to(dtype)
    x[0] = float("-inf")
    x[1, 3], x[2, 5] = float("inf"), float("nan")
    _exact(lambda t: (t.log_softmax(-1), t.log_softmax(0)), x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_hardswish_and_scatter_add_round_once(dtype):
    """fuzz 7020309, 7022725: hardswish in float32, rounded once; a scatter's sums
    accumulated in float32, rounded once."""
    g = torch.Generator().manual_seed(1)
    x = (torch.randn(3, 40, generator=g) * 4).to(dtype)
    index = torch.randint(0, 3, (12, 40), generator=g)
    src = torch.randn(12, 40, generator=g).to(dtype)
    _exact(
        lambda a, i, s: (F.hardswish(a), a.scatter_add(0, i, s)),
        x,
        index,
        src,
    )
