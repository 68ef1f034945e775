"""Filled tensors (full, *_like, new_*), triu/tril, log1p/expm1, hardswish/hardsigmoid and
eval-identity ops lower to IR that the reference interpreter runs like eager PyTorch, with
both frontends; what Cuvil does not support (a device, a dtype, training mode) is refused."""

from __future__ import annotations

import pytest
import torch
import torch.fx
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_checks import FRONTENDS, check_lowering, randn
from torch import nn

from cuvil.errors import UnsupportedOpError
from cuvil.frontend import lower
from cuvil.frontend.registry import LOWERINGS


def case(id: str, fn, *inputs):
    return pytest.param(fn, inputs, id=id)


NEAR_ZERO = torch.tensor([1e-6, -1e-6, 3e-8, 0.0, -0.3, 0.4, 0.7, -0.9, 5.0, -20.0])

FILLED = [
    case("full_like", lambda x: x + torch.full_like(x, 2.5), randn(3, 4)),
    case("full_like-int-fill", lambda x: torch.full_like(x, 2), randn(2, 3)),
    case(
        "full_like-dtype", lambda x: torch.full_like(x, 7, dtype=torch.int64), randn(3)
    ),
    case("ones_like", lambda x: x * torch.ones_like(x), randn(2, 3)),
    case("zeros_like", lambda x: torch.zeros_like(x) - x, randn(5)),
    case("empty_like-as-zeros", lambda x: torch.empty_like(x).zero_() + x, randn(4)),
    case("zeros_like-bool", lambda x: torch.zeros_like(x, dtype=torch.bool), randn(3)),
    case("new_zeros", lambda x: x.new_zeros(x.shape) + x, randn(2, 3)),
    case("new_zeros-varargs", lambda x: x.new_zeros(2, 3) + x, randn(2, 3)),
    case("new_ones", lambda x: x.new_ones((4,)) + x, randn(3, 4)),
    case("new_full", lambda x: x.new_full((3, 1), -1.5) * x, randn(3, 4)),
    case("new_empty", lambda x: x.new_empty((2, 2)).fill_(3.0) + x, randn(2, 2)),
    case("full", lambda x: torch.full((3, 4), 2.0) + x, randn(3, 4)),
    case("full-int", lambda x: torch.full((3,), 2) + x, randn(3)),
    case(
        "full-device-cpu", lambda x: torch.full((2,), 1.0, device="cpu") + x, randn(2)
    ),
    case("zeros-ones", lambda x: torch.zeros(3, 4) + torch.ones(4) + x, randn(3, 4)),
    case("full-0d", lambda x: torch.full((), 3.0) * x, randn(2)),
    case("full-large", lambda x: torch.full((9, 9), 2) * x, randn(9, 9)),
    case(
        "zeros-ones-large", lambda x: torch.zeros(8, 9) - torch.ones([9]) + x, randn(9)
    ),
    case(
        "fill_-copy_", lambda x: (x * 1).fill_(2.0) + (x * 2).copy_(x[0]), randn(3, 2)
    ),
]

TRIANGLES = [
    case("triu", torch.triu, randn(4, 5)),
    case("tril", torch.tril, randn(5, 4)),
    case("triu-diag", lambda x: torch.triu(x, 2), randn(3, 6)),
    case("tril-negdiag", lambda x: x.tril(-1), randn(2, 4, 4)),
    case("triu-beyond", lambda x: x.triu(9), randn(3, 3)),
    case("tril_-inplace", lambda x: (x * 1).tril_(1), randn(4, 4)),
]

ACTIVATIONS = [
    case("log1p", torch.log1p, NEAR_ZERO),
    case("expm1", torch.expm1, NEAR_ZERO),
    case("log1p-method", lambda x: x.abs().log1p(), randn(3, 4)),
    case("special-expm1", torch.special.expm1, randn(6)),
    case("hardswish", F.hardswish, randn(4, 5) * 4),
    case("hardsigmoid", F.hardsigmoid, randn(4, 5) * 4),
    case("hardswish-module", nn.Hardswish(), randn(3, 8) * 4),
    case("dropout3d", lambda x: F.dropout3d(x, 0.3, training=False), randn(1, 2, 2, 3)),
    case(
        "feature-alpha-dropout", lambda x: F.feature_alpha_dropout(x, 0.2), randn(2, 3)
    ),
    case("alpha_dropout", lambda x: F.alpha_dropout(x, 0.5, False), randn(3)),
]


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("fn, inputs", FILLED + TRIANGLES + ACTIVATIONS)
def test_new_ops_match_eager(fn, inputs, frontend):
    check_lowering(fn, inputs, frontend)


def _one_broadcast_scalar(fn, frontend: str) -> None:
    module = check_lowering(fn, (randn(64, 64),), frontend)
    assert not module.params
    assert "cuvil.expand" in [op.name for op in module.main.ops]


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_full_like_is_one_scalar_broadcast_not_a_tensor_sized_constant(frontend):
    _one_broadcast_scalar(lambda x: torch.full_like(x, 1.5) + x, frontend)


def test_a_large_factory_is_one_scalar_broadcast_under_export():
    # (FX itself evaluates torch.ones(64, 64) while tracing: a constant attribute)
    _one_broadcast_scalar(lambda x: torch.ones(64, 64) + x, "export")


@settings(max_examples=10, deadline=None)
@given(
    shape=st.lists(st.integers(1, 6), min_size=2, max_size=4),
    diagonal=st.integers(-6, 6),
    upper=st.booleans(),
    frontend=st.sampled_from(FRONTENDS),
)
def test_triangles_match_eager_on_drawn_shapes(shape, diagonal, upper, frontend):
    fn = (lambda x: x.triu(diagonal)) if upper else (lambda x: x.tril(diagonal))
    check_lowering(fn, (randn(*shape),), frontend)


@settings(max_examples=10, deadline=None)
@given(
    shape=st.lists(st.integers(1, 5), min_size=0, max_size=3),
    fill=st.one_of(st.integers(-5, 5), st.floats(-1e3, 1e3), st.booleans()),
    frontend=st.sampled_from(FRONTENDS),
)
def test_full_like_and_new_full_match_eager_on_drawn_shapes(shape, fill, frontend):
    fn = lambda x: (torch.full_like(x, fill), x.new_full(x.shape[::-1], fill))  # noqa: E731
    check_lowering(fn, (randn(*shape),), frontend)


# ---- refused ------------------------------------------------------------------------------
REFUSED = [
    case("full_like-meta", lambda x: torch.full_like(x, 1.0, device="meta"), randn(2)),
    case(
        "full_like-complex",
        lambda x: torch.full_like(x, 1, dtype=torch.cfloat),
        randn(2),
    ),
]


@pytest.mark.parametrize("fn, inputs", REFUSED)
def test_unsupported_forms_raise_unsupported_op_error(fn, inputs):
    with pytest.raises(UnsupportedOpError):
        lower(_Wrap(fn), inputs, frontend="fx")


def test_a_tensor_fill_value_is_refused():
    with pytest.raises(UnsupportedOpError, match="fill value"):
        lower(_Wrap(lambda x: torch.full_like(x, x.sum())), (randn(2),), frontend="fx")


class _Wrap(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


# ---- library ops found by name ------------------------------------------------------------
def stochastic_depth(x, p, mode, training=True):  # the shape of torchvision's
    return x


torch.fx.wrap("stochastic_depth")


class _Depth(nn.Module):
    def forward(self, x):
        return stochastic_depth(x * 2, 0.2, "row", self.training)


def test_a_wrapped_library_function_is_lowered_by_its_qualified_name(monkeypatch):
    rule = LOWERINGS["torchvision.ops.stochastic_depth.stochastic_depth"]
    monkeypatch.setitem(LOWERINGS, f"{__name__}.stochastic_depth", rule)
    check_lowering(_Depth(), (randn(2, 3),), "fx")
    with pytest.raises(UnsupportedOpError, match="training mode"):
        lower(_Depth().train(), (randn(2, 3),), frontend="fx")


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_torchvision_stochastic_depth_is_the_identity_in_eval(frontend):
    ops = pytest.importorskip("torchvision.ops")
    model = nn.Sequential(nn.Linear(3, 3), ops.StochasticDepth(0.3, "row"))
    check_lowering(model.eval(), (randn(2, 3),), frontend)


class _Symbolic(nn.Module):
    def forward(self, x):
        ones = x.new_ones(x.shape) + torch.zeros_like(x)
        return torch.full_like(x, 2.0) * x + ones + (x * 1).fill_(0.5)


def test_filled_tensors_of_a_symbolic_batch_follow_the_runtime_size():
    from torch.export import Dim

    from cuvil.ir.interpreter import interpret

    x = randn(4, 3)
    dims = {"x": {0: Dim("batch", min=2, max=64)}}
    ep = torch.export.export(_Symbolic(), (x,), dynamic_shapes=dims)
    module = lower(ep, (x,), frontend="export")
    assert not isinstance(module.main.result_types[0].shape[0], int)
    for batch in (2, 7):
        xb = randn(batch, 3)
        torch.testing.assert_close(interpret(module, [xb])[0], _Symbolic()(xb))
