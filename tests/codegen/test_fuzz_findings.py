"""What the random-graph tier (cuvil_debug.fuzz, docs/FUZZ.md) found refused or wrong and
is now lowered, checked against eager on hypothesis-drawn shapes through both frontends:
bfloat16 code generation, half floats computed in float, integer matmul and pooling,
clamp with min > max or NaN bounds, softmax's implicit dim, ``abs(x)``/``+x`` under fx,
``fill_`` with a 0-d tensor, SDPA rows masked out entirely. The fixed-value samples of
each bug are tests/fuzz/regressions/ (replayed in the normal tier); these draw shapes
and values, in the slow tier.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_checks import wrap

import cuvil

pytestmark = pytest.mark.slow

FRONTENDS = ["fx", "export"]
SETTINGS = settings(max_examples=6, deadline=None, derandomize=True)
shapes = st.lists(st.integers(1, 6), min_size=1, max_size=3)


def compiled(fn, *inputs, frontend="fx", opt="O3"):
    model = wrap(fn, len(inputs)).eval()
    options = {"opt_level": opt, "frontend": frontend}
    with torch.no_grad():
        want = model(*inputs)
        got = cuvil.compile(model, list(inputs), options=options)(*inputs)
    return got, want


def seeded(shape, dtype=torch.float32, seed=0, scale=3.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g) * scale).to(dtype)


@pytest.mark.parametrize("frontend", FRONTENDS)
@SETTINGS
@given(shape=shapes, seed=st.integers(0, 99))
def test_bfloat16_elementwise_reductions_and_casts(frontend, shape, seed):
    x = seeded(shape, torch.bfloat16, seed)

    def fn(x):
        y = torch.relu(x * 1.5 + 0.25) - x.sigmoid()
        return (
            y,
            y.sum(-1),
            y.amax(-1),
            y.float().softmax(-1),
            (y.float() * 3).bfloat16(),
        )

    got, want = compiled(fn, x, frontend=frontend)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        torch.testing.assert_close(g.float(), w.float(), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("frontend", FRONTENDS)
@SETTINGS
@given(shape=shapes, seed=st.integers(0, 99))
def test_half_float_math_in_float(frontend, shape, seed):
    x = seeded(shape, torch.float16, seed, 2.0)

    def fn(x):
        return F.gelu(x), torch.tanh(x), torch.erf(x), torch.expm1(x), F.silu(x)

    got, want = compiled(fn, x, frontend=frontend)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("frontend", FRONTENDS)
@SETTINGS
@given(
    n=st.integers(1, 5),
    k=st.integers(1, 5),
    m=st.integers(1, 5),
    batch=st.lists(st.integers(1, 3), max_size=2),
    dtype=st.sampled_from([torch.int64, torch.int32, torch.uint8]),
)
def test_integer_matmul_is_exact(frontend, n, k, m, batch, dtype):
    g = torch.Generator().manual_seed(n * 100 + k * 10 + m)
    a = torch.randint(0, 9, (*batch, n, k), generator=g).to(dtype)
    b = torch.randint(0, 9, (k, m), generator=g).to(dtype)
    got, want = compiled(torch.matmul, a, b, frontend=frontend)
    assert got.dtype == want.dtype and torch.equal(got, want)


@pytest.mark.parametrize("frontend", FRONTENDS)
@SETTINGS
@given(
    length=st.integers(2, 9),
    kernel=st.integers(1, 3),
    stride=st.integers(1, 2),
    pad=st.integers(0, 1),
    ceil=st.booleans(),
)
def test_integer_pooling_matches_eager(frontend, length, kernel, stride, pad, ceil):
    pad = min(pad, kernel // 2)
    x = torch.randint(
        -20, 20, (2, 3, length), generator=torch.Generator().manual_seed(length)
    )

    def fn(x):
        avg = F.avg_pool1d(x, kernel, stride, pad, ceil_mode=ceil)
        big = F.max_pool2d(x[None].float(), (1, kernel), (1, stride), (0, pad)).long()
        return avg, big

    got, want = compiled(fn, x, frontend=frontend)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and torch.equal(g, w)


BOUNDS = st.sampled_from([-2.0, -0.5, 0.0, 0.5, 2.0, math.nan, None])


@pytest.mark.parametrize("frontend", FRONTENDS)
@SETTINGS
@given(shape=shapes, lo=BOUNDS, hi=BOUNDS)
def test_clamp_any_bounds(frontend, shape, lo, hi):
    if lo is None and hi is None:
        hi = 1.0
    x = seeded(shape, seed=len(shape))
    x.view(-1)[0] = math.nan
    got, want = compiled(
        lambda x: (x.clamp(lo, hi), torch.ops.aten.hardtanh.default(x, *_ht(lo, hi))),
        x,
        frontend=frontend,
    )
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w, equal_nan=True)


def _ht(lo, hi):
    return (-1.0 if lo is None else lo), (1.0 if hi is None else hi)


@pytest.mark.parametrize("frontend", FRONTENDS)
@settings(max_examples=5, deadline=None, derandomize=True)
@given(shape=st.lists(st.integers(1, 4), min_size=0, max_size=4))
def test_softmax_implicit_dim_abs_and_pos(frontend, shape):
    x = seeded(shape, seed=len(shape))
    fn = lambda x: (F.softmax(x), F.log_softmax(abs(x)), +x)  # noqa: E731
    got, want = compiled(fn, x, frontend=frontend)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("frontend", FRONTENDS)
@SETTINGS
@given(
    lq=st.integers(1, 4),
    lk=st.integers(1, 4),
    d=st.integers(1, 5),
    seed=st.integers(0, 99),
)
def test_sdpa_rows_masked_out_give_zeros(frontend, lq, lk, d, seed):
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(2, n, d, generator=g) for n in (lq, lk, lk))
    mask = torch.rand(lq, lk, generator=g) < 0.5
    mask[0] = False  # the first query sees nothing
    fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # noqa: E731
    got, want = compiled(fn, q, k, v, frontend=frontend)
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("frontend", FRONTENDS)
@SETTINGS
@given(shape=shapes, value=st.floats(-3, 3))
def test_fill_with_a_0d_tensor(frontend, shape, value):
    fill = torch.tensor(value)
    got, want = compiled(
        lambda x: x.exp().fill_(fill), seeded(shape), frontend=frontend
    )
    torch.testing.assert_close(got, want)
