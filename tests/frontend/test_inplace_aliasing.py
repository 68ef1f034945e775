"""In-place ops lower exactly (rebinding the written tensor) or are refused: never a stale
read through another alias. The export frontend functionalizes, so it computes the cases
FX must refuse."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_checks import FRONTENDS, check_lowering, randn
from torch import nn

from cuvil.errors import FrontendError, UnsupportedOpError
from cuvil.frontend import lower


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def _chain(x):
    y = x * 2
    y = F.hardtanh(y, 0.0, 6.0, inplace=True)
    y = F.silu(y, inplace=True)
    y = F.hardswish(y, inplace=True)
    y = F.dropout(y, 0.5, training=False, inplace=True)
    y.detach_()
    y.add_(1).mul_(2)
    torch.relu_(y)
    y.sigmoid_()
    return y.clamp_(0.2, 0.8)


def _view_before(x):
    y = x * 2
    v = y.view(-1)
    y.relu_()
    return v  # reads the mutation through the view


def _base_after(x):
    y = x * 2
    y[0].mul_(3)
    return y  # reads the mutation through the base


def _detach_alias(x):
    y = x * 2
    d = y.detach()
    y.add_(1)
    return d


def _earlier_result(x):
    y = x * 2
    a = y.add_(1)
    y.mul_(3)
    return a


def _clone_is_not_an_alias(x):
    y = x * 2
    c = y.clone()
    y.add_(1)
    return c, y


def _module_inplace(x):
    y = x - 1
    r = F.relu(y, inplace=True)
    return y + r


class LeafInplace(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.ReLU6(inplace=True)  # a leaf module of the FX frontend

    def forward(self, x):
        y = x * 3
        z = self.act(y)
        return y + z  # y was written by the module


EXACT = [
    pytest.param(_chain, id="activation-chain"),
    pytest.param(_clone_is_not_an_alias, id="clone"),
    pytest.param(_module_inplace, id="relu-inplace"),
    pytest.param(_earlier_result, id="earlier-inplace-result-is-the-same-tensor"),
]
ALIASED = [
    pytest.param(_view_before, id="view-taken-before"),
    pytest.param(_base_after, id="base-read-after"),
    pytest.param(_detach_alias, id="detach-alias"),
]


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("fn", EXACT)
def test_in_place_ops_without_other_aliases_match_eager(fn, frontend):
    check_lowering(Fn(fn), (randn(3, 4),), frontend)


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_an_in_place_leaf_module_writes_its_input(frontend):
    check_lowering(LeafInplace(), (randn(3, 4),), frontend)


@pytest.mark.parametrize("fn", ALIASED)
def test_fx_refuses_a_mutation_read_through_another_alias(fn):
    with pytest.raises(UnsupportedOpError, match="shares its storage"):
        lower(Fn(fn), (randn(3, 4),), frontend="fx")


@pytest.mark.parametrize("fn", ALIASED[:1] + ALIASED[2:])
def test_export_functionalizes_a_mutation_read_through_another_alias(fn):
    check_lowering(Fn(fn), (randn(3, 4),), "export")


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_an_in_place_op_on_a_parameter_is_refused(frontend):
    class WritesParam(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(4), requires_grad=False)

        def forward(self, x):
            return x + self.w.mul_(2)

    with pytest.raises(UnsupportedOpError, match="in-place"):
        lower(WritesParam(), (randn(4),), frontend=frontend)


def test_fx_shape_propagation_leaves_the_callers_inputs_unchanged():
    x = randn(3)
    before = x.clone()
    with pytest.raises(UnsupportedOpError):
        lower(Fn(lambda t: t.add_(1)), (x,), frontend="fx")
    assert torch.equal(x, before)


def test_export_of_a_mutated_slice_is_exact_or_refused():
    try:
        check_lowering(Fn(_base_after), (randn(3, 4),), "export")
    except UnsupportedOpError:
        pass  # slice_scatter is not lowered: refused, never a wrong result


class _WritesBuffer(nn.Module):
    """torch cannot functionalize this graph away (a buffer is written): the export
    walk rebinds, with storage facts from export's fake values."""

    def __init__(self, view_first: bool):
        super().__init__()
        self.view_first = view_first
        self.register_buffer("count", torch.zeros(3))

    def forward(self, x):
        y = x * 2
        v = y.view(-1) if self.view_first else y
        y.relu_()
        self.count.add_(1)
        return v + self.count


@pytest.mark.parametrize("view_first", [True, False])
def test_export_with_a_buffer_write_refuses_rather_than_reads_a_stale_alias(view_first):
    match = "shares its storage" if view_first else "parameter or buffer"
    with pytest.raises(UnsupportedOpError, match=match):
        lower(_WritesBuffer(view_first), (randn(3),), frontend="export")


# every in-place spelling maps to its out-of-place rule (x.op_, torch.op_, F.op_)
SPELLINGS = {
    "torch.dropout_": lambda y: torch.dropout_(y, 0.3, False),
    "torch.feature_alpha_dropout_": lambda y: torch.alpha_dropout_(y, 0.3, False),
    "torch.sigmoid_": torch.sigmoid_,
    "torch.exp_": torch.exp_,
    "torch.clamp_": lambda y: torch.clamp_(y, -0.5, 0.5),
    "F.relu_": F.relu_,
    "F.hardtanh_": lambda y: F.hardtanh_(y, -0.2, 0.3),
    "F.leaky_relu_": lambda y: F.leaky_relu_(y, 0.1),
    "Tensor.log1p_": lambda y: y.abs_().log1p_(),
    "Tensor.expm1_": lambda y: y.expm1_(),
    "Tensor.tanh_": lambda y: y.tanh_(),
    "Tensor.masked_fill_": lambda y: y.masked_fill_(y > 0, 2.0),
    "Tensor.div_": lambda y: y.div_(3).sub_(1),
}


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_in_place_spellings_lower_as_their_out_of_place_op(name, frontend):
    op = SPELLINGS[name]

    def fn(x):
        y = x * 2
        r = op(y)
        return y + r  # both names of the written tensor

    check_lowering(Fn(fn), (randn(3, 4),), frontend)


@settings(max_examples=12, deadline=None)
@given(
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=3),
    chain=st.lists(st.sampled_from(sorted(SPELLINGS)), min_size=1, max_size=4),
    frontend=st.sampled_from(FRONTENDS),
)
def test_drawn_chains_of_in_place_ops_match_eager(shape, chain, frontend):
    def fn(x):
        y = x - 0.25
        for name in chain:
            SPELLINGS[name](y)
        return y

    check_lowering(Fn(fn), (randn(*shape),), frontend)


class _AugmentedThroughView(nn.Module):
    def forward(self, x):
        y = x * 2
        v = y.view(-1)
        y += 1  # torch.fx records y = y + 1: v would miss the update
        return v


def test_fx_refuses_a_trace_that_computes_other_values_than_the_model():
    with pytest.raises(FrontendError, match="computes other values"):
        lower(_AugmentedThroughView(), (randn(3),), frontend="fx")
    check_lowering(_AugmentedThroughView(), (randn(3),), "export")


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_an_inplace_op_keeps_the_written_tensors_dtype(frontend):
    """Fuzz seeds 7002976, 7003050: ``half.add_(float)`` and ``bf16.mul_(float)`` stay
    half; the frontend rebound the name to the float result (a type-check crash)."""

    def fn(x, y):
        h = x.half() * 2
        h.add_(y)
        b = x.bfloat16() + 1
        b.mul_(y)
        return h, b, h + 1

    check_lowering(fn, (randn(2, 3), randn(3)), frontend)
