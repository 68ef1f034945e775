"""Every op of the coverage list, compiled to native code at O0 and O3, matches eager PyTorch
(float32: rtol 1e-4, atol 1e-5), on the frontend tests' cases and on hypothesis shapes."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_checks import randn, wrap
from test_lower_math import (
    COMPARE_WHERE,
    ELEMENTWISE,
    PROMOTION,
    REDUCTIONS,
    SIZE_ZERO_AND_ONE,
)
from test_lower_nn import (
    _CONV_WEIGHTS,
    _NORM_WEIGHTS,
    ATTENTION,
    CONV_FUNCTIONAL,
    CONV_MODULES,
    MATMUL,
    NORM_FUNCTIONAL,
    NORM_MODULES,
    POOL_FUNCTIONAL,
    POOL_MODULES,
    WithWeights,
)
from test_lower_shape import INDEXING, JOIN_SPLIT, RESHAPE
from torch import nn
from torch.utils._pytree import tree_flatten

import cuvil

OPTS = ["O0", "O3"]
RTOL, ATOL = 1e-4, 1e-5


def check_compiled(model, inputs, opt: str) -> None:
    if not isinstance(model, nn.Module):
        model = wrap(model, len(inputs))
    model.eval()
    with torch.no_grad():
        want = tree_flatten(model(*inputs))[0]
    compiled = cuvil.compile(model, list(inputs), options={"opt_level": opt})
    got = tree_flatten(compiled(*inputs))[0]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w, rtol=RTOL, atol=ATOL, equal_nan=True)


FUNCTION_CASES = (
    ELEMENTWISE
    + PROMOTION
    + COMPARE_WHERE
    + REDUCTIONS
    + SIZE_ZERO_AND_ONE
    + MATMUL
    + POOL_FUNCTIONAL
    + ATTENTION
    + RESHAPE
    + JOIN_SPLIT
    + INDEXING
)


@pytest.mark.parametrize("opt", OPTS)
@pytest.mark.parametrize("fn, inputs", FUNCTION_CASES)
def test_compiled_function_matches_eager(fn, inputs, opt):
    check_compiled(fn, inputs, opt)


@pytest.mark.parametrize("opt", OPTS)
@pytest.mark.parametrize("fn, inputs", CONV_FUNCTIONAL)
def test_compiled_functional_conv_with_weights_matches_eager(fn, inputs, opt):
    check_compiled(WithWeights(fn, **_CONV_WEIGHTS), inputs, opt)


@pytest.mark.parametrize("opt", OPTS)
@pytest.mark.parametrize("fn, inputs", NORM_FUNCTIONAL)
def test_compiled_functional_norm_with_weights_matches_eager(fn, inputs, opt):
    check_compiled(WithWeights(fn, **_NORM_WEIGHTS), inputs, opt)


@pytest.mark.parametrize("opt", OPTS)
@pytest.mark.parametrize("model, shape", CONV_MODULES + NORM_MODULES + POOL_MODULES)
def test_compiled_module_matches_eager(model, shape, opt):
    check_compiled(model, (randn(*shape),), opt)


# ---- hypothesis-drawn shapes ----------------------------------------------------------------
dims = st.integers(1, 9)


@st.composite
def broadcast_pair(draw):
    shape = draw(st.lists(dims, min_size=0, max_size=4))
    other = [1 if draw(st.booleans()) else d for d in shape]
    cut = draw(st.integers(0, len(other)))
    return tuple(shape), tuple(other[cut:])


@settings(max_examples=12, deadline=None)
@given(
    pair=broadcast_pair(),
    op=st.sampled_from(["add", "sub", "mul", "div", "maximum", "lt"]),
    opt=st.sampled_from(OPTS),
)
def test_broadcasting_binary_ops_on_drawn_shapes(pair, op, opt):
    fn = getattr(torch, op)
    check_compiled(lambda a, b: fn(a, b), (randn(*pair[0]), randn(*pair[1])), opt)


@settings(max_examples=12, deadline=None)
@given(
    shape=st.lists(dims, min_size=1, max_size=4),
    data=st.data(),
    opt=st.sampled_from(OPTS),
    op=st.sampled_from(["sum", "mean", "amax", "var"]),
)
def test_reductions_on_drawn_dims(shape, data, opt, op):
    rank = len(shape)
    red = data.draw(
        st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank, unique=True)
    )
    if len({d % rank for d in red}) != len(red):
        red = red[:1]
    keep = data.draw(st.booleans())
    fn = getattr(torch, op)
    check_compiled(lambda x: fn(x, red, keepdim=keep), (randn(*shape),), opt)


@st.composite
def conv_case(draw):
    groups = draw(st.sampled_from([1, 2]))
    cin, cout = groups * draw(st.integers(1, 3)), groups * draw(st.integers(1, 3))
    k = draw(st.integers(1, 4))
    stride, dilation = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    padding = draw(st.integers(0, k // 2 + 1))
    span = dilation * (k - 1) + 1
    size = draw(st.integers(max(1, span - 2 * padding), 12))
    bias = draw(st.booleans())
    return cin, cout, k, stride, padding, dilation, groups, size, bias


@settings(max_examples=15, deadline=None)
@given(case=conv_case(), two_d=st.booleans(), opt=st.sampled_from(OPTS))
def test_convolutions_on_drawn_parameters(case, two_d, opt):
    cin, cout, k, stride, padding, dilation, groups, size, bias = case
    cls = nn.Conv2d if two_d else nn.Conv1d
    model = cls(cin, cout, k, stride, padding, dilation, groups, bias=bias)
    shape = (2, cin, size, size + 1) if two_d else (2, cin, size)
    check_compiled(model, (randn(*shape),), opt)


@settings(max_examples=12, deadline=None)
@given(
    m=st.integers(1, 40),
    k=st.integers(1, 40),
    n=st.integers(1, 40),
    batch=st.sampled_from([(), (2,), (2, 1)]),
    weight=st.booleans(),
    opt=st.sampled_from(OPTS),
)
def test_matmul_and_linear_on_drawn_shapes(m, k, n, batch, weight, opt):
    if weight:
        check_compiled(nn.Linear(k, n), (randn(*batch, m, k),), opt)
    else:
        check_compiled(
            lambda a, b: a @ b, (randn(*batch, m, k), randn(*batch, k, n)), opt
        )


@settings(max_examples=10, deadline=None)
@given(
    size=st.integers(2, 11),
    k=st.integers(1, 3),
    stride=st.integers(1, 3),
    ceil=st.booleans(),
    avg=st.booleans(),
    opt=st.sampled_from(OPTS),
)
def test_pools_on_drawn_shapes(size, k, stride, ceil, avg, opt):
    pad = k // 2
    fn = (
        (lambda x: F.avg_pool2d(x, k, stride, pad, ceil))
        if avg
        else (lambda x: F.max_pool2d(x, k, stride, pad, ceil_mode=ceil))
    )
    check_compiled(fn, (randn(1, 2, size, size + 2),), opt)


def test_non_contiguous_inputs_are_made_contiguous():
    x = randn(6, 4).t()
    compiled = cuvil.compile(wrap(lambda a: a * 2 + 1, 1), [x.contiguous()])
    torch.testing.assert_close(compiled(x), x * 2 + 1)


def test_many_compiled_modules_can_live_and_die_in_one_process():
    import gc

    x = randn(2, 8)
    for n in range(3):
        compiled = cuvil.compile(nn.Linear(8, 4 + n), [x])
        assert compiled(x).shape == (2, 4 + n)
        del compiled
        gc.collect()
