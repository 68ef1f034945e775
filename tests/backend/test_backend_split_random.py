"""Random programs through the backend's split (slow tier): ops Cuvil compiles, ops it
refuses and in-place writes through aliases, in any order (random_programs.py). The
compiled program computes what eager computes; the draws are reproducible (the suite's
``ci`` hypothesis profile). 230 programs passed this way when the write rules of
split.py were written (180 with a split)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cuvil.backend

sys.path.insert(0, str(Path(__file__).resolve().parent))
from random_programs import OPS, Program  # noqa: E402

STEPS = st.lists(
    st.tuples(st.sampled_from(OPS), st.integers(0, 9), st.integers(0, 9)),
    min_size=3,
    max_size=9,
).map(tuple)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(steps=STEPS, seed=st.integers(0, 2**16))
def test_random_programs_split_like_eager(steps, seed):
    model = Program(steps).eval()
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(seed))
    torch._dynamo.reset()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", cuvil.backend.EagerFallbackWarning)
        want = model(x.clone())
        got = torch.compile(model, backend="cuvil")(x.clone())
    # (the output sums up to 32 values: atol 1e-4 for float32 sums of O(1) values)
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
