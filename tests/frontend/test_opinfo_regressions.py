"""Regressions found by the OpInfo tier (tests/opinfo): each was a wrong result or an
internal error on legal torch input, and is now a correct lowering or a clean refusal."""

from __future__ import annotations

import operator

import pytest
import torch
import torch.nn.functional as F
from lowering_checks import FRONTENDS, check_lowering, randn, wrap
from torch import nn

import cuvil
from cuvil.errors import CuvilError, FrontendError, UnsupportedOpError
from cuvil.frontend import lower
from cuvil.frontend.fx import from_fx
from cuvil.ir.interpreter import interpret

aten = torch.ops.aten


# ---- var / std with any real correction ------------------------------------------------
@pytest.mark.filterwarnings("ignore:var\\(\\)|std\\(\\):UserWarning")
@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize(
    "fn",
    [
        lambda x: torch.var(x, 1, correction=1.3),
        lambda x: torch.std(x, 1, correction=0.5, keepdim=True),
        lambda x: torch.var(x, correction=2.5),
        lambda x: torch.var(x, 1, correction=5),  # n - correction = 0: inf, like torch
        lambda x: torch.std(x, 0, correction=7),  # beyond n: torch divides by 0
        lambda x: torch.var(x, 1, correction=-1),
    ],
    ids=["var-1.3", "std-0.5-keepdim", "var-all-2.5", "var-n", "std-over-n", "var-neg"],
)
def test_var_and_std_honour_a_non_integer_or_large_correction(fn, frontend):
    check_lowering(fn, (randn(4, 5),), frontend)


def test_var_with_float_correction_compiles_to_eager_values():
    model = wrap(lambda x: torch.var(x, 1, correction=1.3), 1)
    x = randn(4, 5)
    got = cuvil.compile(model, [x], options={"opt_level": "O1"})(x)
    torch.testing.assert_close(got, torch.var(x, 1, correction=1.3))


# ---- 0-d inputs with dim=0 ---------------------------------------------------------------
ZERO_D = [
    lambda x: torch.argmax(x, 0),
    lambda x: torch.argmin(x, -1, keepdim=True),
    lambda x: torch.max(x, 0)[0] + torch.max(x, 0)[1],
    lambda x: torch.min(x, 0, keepdim=True)[1],
    lambda x: torch.squeeze(x, 0),
    lambda x: x.squeeze((0,)),
]


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize(
    "fn", ZERO_D, ids=["argmax", "argmin", "max", "min", "sq", "sq2"]
)
def test_zero_dim_input_reduces_along_dim_zero(fn, frontend):
    check_lowering(fn, (randn(),), frontend)


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_argmax_without_dim_keeps_every_dim_with_keepdim(frontend):
    check_lowering(lambda x: torch.argmax(x, keepdim=True), (randn(2, 3),), frontend)


# ---- batch_norm, conv, avg_pool ----------------------------------------------------------
@pytest.mark.parametrize("frontend", FRONTENDS)
def test_batch_norm_of_an_empty_input_is_empty(frontend):
    fn = lambda x, m, v: F.batch_norm(x, m, v, training=False)  # noqa: E731
    check_lowering(fn, (randn(0), randn(0), randn(0).abs()), frontend)


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize(
    "fn, x, w",
    [
        (F.conv1d, randn(3, 8), randn(2, 3, 3)),
        (lambda x, w: F.conv2d(x, w, padding=1), randn(3, 5, 5), randn(2, 3, 3, 3)),
    ],
    ids=["conv1d", "conv2d"],
)
def test_unbatched_convolution_is_a_batch_of_one(fn, x, w, frontend):
    check_lowering(fn, (x, w), frontend)


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_avg_pool_with_a_non_positive_divisor_is_refused(frontend):
    fn = lambda x: F.avg_pool2d(x, 2, divisor_override=-2)  # noqa: E731
    with pytest.raises(UnsupportedOpError, match="divisor_override=-2"):
        lower(wrap(fn, 1), (randn(1, 1, 4, 4),), frontend=frontend)


# ---- narrow ----------------------------------------------------------------------------
class _NarrowByInput(nn.Module):
    def forward(self, x, start):
        return torch.narrow(x, 1, start, 2)


def test_narrow_with_a_run_time_start_is_refused_under_fx():
    inputs = (randn(3, 5), torch.tensor(1))
    with pytest.raises(UnsupportedOpError, match="narrow with a start computed"):
        lower(_NarrowByInput(), inputs, frontend="fx")


class _NarrowByBuffer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("start", torch.tensor(2))

    def forward(self, x):
        return torch.narrow(x, 1, self.start, 2)


def test_narrow_with_a_constant_tensor_start_lowers_under_fx():
    check_lowering(_NarrowByBuffer(), (randn(3, 5),), "fx")


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_narrow_counts_a_negative_start_from_the_end(frontend):
    check_lowering(lambda x: x.narrow(1, -3, 2), (randn(3, 5),), frontend)


# ---- dtypes Cuvil has not ----------------------------------------------------------------
@pytest.mark.parametrize("frontend", FRONTENDS)
def test_where_with_a_complex_scalar_is_refused(frontend):
    fn = lambda x: torch.where(x > 0, x, 1j)  # noqa: E731
    with pytest.raises(UnsupportedOpError, match="complex64"):
        lower(wrap(fn, 1), (randn(3),), frontend=frontend)


def test_cast_to_complex_is_refused():
    with pytest.raises(UnsupportedOpError, match="complex128"):
        lower(wrap(lambda x: x.to(torch.cdouble), 1), (randn(3),), frontend="export")


# ---- graphs ------------------------------------------------------------------------------
def _layer_norm_graph() -> torch.fx.GraphModule:
    """``native_layer_norm(x)[0]`` with the getitems of the two other results left dead."""
    g = torch.fx.Graph()
    x = g.placeholder("x")
    ln = g.call_function(aten.native_layer_norm.default, (x, [4], None, None, 1e-5))
    out = g.call_function(operator.getitem, (ln, 0))
    g.call_function(operator.getitem, (ln, 1))
    g.call_function(operator.getitem, (ln, 2))
    g.output(out)
    return torch.fx.GraphModule(nn.Module(), g)


def test_dead_results_of_a_multi_result_op_are_ignored():
    gm, x = _layer_norm_graph(), randn(3, 4)
    (got,) = interpret(from_fx(gm, [x], gm=gm), [x])
    torch.testing.assert_close(got, F.layer_norm(x, (4,)))


def test_a_used_result_cuvil_does_not_compute_is_still_refused():
    # native_group_norm's statistics (native_layer_norm's are computed where read since
    # the fuzz findings: test_lower_nn; max_pool's indices since the tenth fuzz run)
    g = torch.fx.Graph()
    x = g.placeholder("x")
    norm = g.call_function(
        aten.native_group_norm.default, (x, None, None, 1, 2, 16, 1, 1e-5)
    )
    out = (g.call_function(operator.getitem, (norm, i)) for i in (0, 1))
    g.output(tuple(out))
    gm = torch.fx.GraphModule(nn.Module(), g)
    with pytest.raises(UnsupportedOpError, match="result 1 of a multi-result op"):
        from_fx(gm, [randn(1, 2, 4, 4)], gm=gm)


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_a_model_that_returns_no_tensor_is_a_clean_error(frontend):
    with pytest.raises(FrontendError) as info:
        lower(wrap(lambda x: (), 1), (randn(3),), frontend=frontend)
    assert isinstance(info.value, CuvilError) and "no tensor" in str(info.value)


# ---- arguments a rule does not implement are refused, never ignored --------------------
class _Out(nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x, out):
        self.fn(x, out)
        return out  # read after the call: ignoring out= would return the input


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, out: torch.exp(x, out=out),
        lambda x, out: torch.add(x, 1, out=out),
        lambda x, out: torch.lt(x, 0, out=out),
    ],
    ids=["unary", "binary", "compare"],
)
def test_out_argument_is_refused(fn):
    with pytest.raises(UnsupportedOpError, match="with out="):
        lower(_Out(fn), (randn(3), randn(3)), frontend="fx")


def test_reduction_with_out_is_refused():
    fn = lambda x: torch.sum(x, 0, out=torch.empty(3))  # noqa: E731
    with pytest.raises(UnsupportedOpError, match="with out="):
        lower(wrap(fn, 1), (randn(2, 3),), frontend="fx")


def test_an_argument_without_a_parameter_in_the_rule_is_refused():
    fn = lambda x: torch.max(x, 0, out=(torch.empty(3), torch.empty(3, dtype=int)))  # noqa: E731
    with pytest.raises(UnsupportedOpError, match="torch.max with these arguments"):
        lower(wrap(fn, 1), (randn(2, 3),), frontend="fx")
