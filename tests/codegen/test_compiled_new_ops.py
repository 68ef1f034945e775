"""The ops of #15's simpler half compiled to native code at O0 and O3 match eager PyTorch
(rtol 1e-4, atol 1e-5) with both frontends, on fixed cases and on hypothesis shapes;
log1p/expm1 keep their digits near 0, where log(1 + x) and exp(x) - 1 lose them."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_checks import randn, wrap
from test_inplace_aliasing import EXACT, Fn, LeafInplace
from test_lower_new_ops import ACTIVATIONS, FILLED, TRIANGLES
from torch.utils._pytree import tree_flatten

import cuvil

OPTS = ["O0", "O3"]
FRONTENDS = ["fx", "export"]
RTOL, ATOL = 1e-4, 1e-5


def check_compiled(model, inputs, opt: str, frontend: str) -> None:
    if not isinstance(model, torch.nn.Module):
        model = wrap(model, len(inputs))
    model.eval()
    with torch.no_grad():
        want = tree_flatten(model(*[x.clone() for x in inputs]))[0]
    options = {"opt_level": opt, "frontend": frontend}
    compiled = cuvil.compile(model, list(inputs), options=options)
    got = tree_flatten(compiled(*inputs))[0]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w, rtol=RTOL, atol=ATOL, equal_nan=True)


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("opt", OPTS)
@pytest.mark.parametrize("fn, inputs", FILLED + TRIANGLES + ACTIVATIONS)
def test_compiled_new_ops_match_eager(fn, inputs, opt, frontend):
    check_compiled(fn, inputs, opt, frontend)


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("opt", OPTS)
@pytest.mark.parametrize("fn", EXACT)
def test_compiled_in_place_chains_match_eager(fn, opt, frontend):
    check_compiled(Fn(fn), (randn(3, 4),), opt, frontend)


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_compiled_in_place_leaf_module_matches_eager(frontend):
    check_compiled(LeafInplace(), (randn(3, 4),), "O3", frontend)


# ---- accuracy near 0 ----------------------------------------------------------------------
TINY = torch.tensor([1e-6, -1e-6, 2.5e-7, -3e-8, 1e-12, 1e-4, -1e-4, 0.01, 0.49, -0.49])


@pytest.mark.parametrize("opt", OPTS)
@pytest.mark.parametrize(
    "name, naive",
    [("log1p", lambda x: torch.log(1 + x)), ("expm1", lambda x: torch.exp(x) - 1)],
)
def test_log1p_expm1_keep_their_digits_near_zero(name, naive, opt):
    fn = getattr(torch, name)
    exact = fn(TINY.double()).float()
    got = cuvil.compile(wrap(fn, 1), [TINY], options={"opt_level": opt})(TINY)
    torch.testing.assert_close(got, exact, rtol=1e-6, atol=0)
    # the composition this op replaces fails the suite's tolerance here
    assert not torch.allclose(naive(TINY), exact, rtol=RTOL, atol=0)


# ---- hypothesis-drawn shapes ----------------------------------------------------------------
@settings(max_examples=10, deadline=None)
@given(
    shape=st.lists(st.integers(1, 7), min_size=0, max_size=4),
    name=st.sampled_from(["log1p", "expm1", "hardswish", "full_like", "ones_like"]),
    opt=st.sampled_from(OPTS),
    frontend=st.sampled_from(FRONTENDS),
)
def test_elementwise_new_ops_on_drawn_shapes(shape, name, opt, frontend):
    fns = {
        "log1p": lambda x: torch.log1p(x.abs()),
        "expm1": torch.expm1,
        "hardswish": lambda x: torch.nn.functional.hardswish(x * 4),
        "full_like": lambda x: torch.full_like(x, -2.5) * x,
        "ones_like": lambda x: x.new_ones(x.shape) + torch.zeros_like(x),
    }
    check_compiled(fns[name], (randn(*shape),), opt, frontend)


@settings(max_examples=10, deadline=None)
@given(
    shape=st.lists(st.integers(1, 6), min_size=2, max_size=4),
    diagonal=st.integers(-5, 5),
    upper=st.booleans(),
    opt=st.sampled_from(OPTS),
    frontend=st.sampled_from(FRONTENDS),
)
def test_triangles_on_drawn_shapes(shape, diagonal, upper, opt, frontend):
    fn = (lambda x: x.triu(diagonal)) if upper else (lambda x: x.tril(diagonal))
    check_compiled(fn, (randn(*shape),), opt, frontend)
