"""The elementwise math of ir/ops/mathx.py compiled to native code, against eager
(float32: rtol 1e-4, atol 1e-5; integers, booleans, NaN positions exact), through both
frontends at O0 and O3, on fixed edge values and hypothesis-drawn shapes."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cuvil

EDGES = torch.tensor(
    [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        1e-7,
        3.0,
        -7.25,
        40.0,
        math.inf,
        -math.inf,
        math.nan,
        0.999,
        -0.999,
        1.0,
        -1.0,
        100.5,
    ]
)

UNARY = {
    "tan": torch.tan,
    "asin": torch.asin,
    "acos": torch.acos,
    "atan": torch.atan,
    "sinh": torch.sinh,
    "cosh": torch.cosh,
    "asinh": torch.asinh,
    "acosh": torch.acosh,
    "atanh": torch.atanh,
    "log2": torch.log2,
    "log10": torch.log10,
    "exp2": torch.exp2,
    "erfc": torch.erfc,
    "lgamma": torch.lgamma,
    "frac": torch.frac,
    "trunc": torch.trunc,
    "fix": torch.fix,
    "sign": torch.sign,
    "sgn": torch.sgn,
    "round": torch.round,
    "round3": lambda x: torch.round(x, decimals=3),
    "round_neg1": lambda x: torch.round(x, decimals=-1),
    "isnan": torch.isnan,
    "isinf": torch.isinf,
    "signbit": torch.signbit,
    "nan_to_num": torch.nan_to_num,
    "nan_to_num_args": lambda x: torch.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0),
    "elu": F.elu,
    "selu": F.selu,
    "celu": lambda x: F.celu(x, alpha=0.5),
    "softshrink": F.softshrink,
    "hardshrink": lambda x: F.hardshrink(x, 1.0),
}
BINARY = {
    "atan2": torch.atan2,
    "hypot": torch.hypot,
    "copysign": torch.copysign,
    "fmax": torch.fmax,
    "fmin": torch.fmin,
    "nextafter": torch.nextafter,
    "xlogy": torch.xlogy,
    "logaddexp": torch.logaddexp,
    "logaddexp2": torch.logaddexp2,
    "remainder": torch.remainder,
    "mod_op": lambda a, b: a % b,
    "fmod": torch.fmod,
    "floordiv": lambda a, b: a // b,
    "div_floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "div_trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "heaviside": torch.heaviside,
    "logical_xor": torch.logical_xor,
}
INT_BINARY = (
    "remainder",
    "mod_op",
    "fmod",
    "floordiv",
    "div_floor",
    "div_trunc",
    "heaviside",
    "logical_xor",
)


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


class Fn1(Fn):
    def forward(self, x):
        return self.fn(x)


class Fn2(Fn):
    def forward(self, x, y):
        return self.fn(x, y)


def _check(model, xs, frontend, opt):
    want = model(*xs)
    got = cuvil.compile(model, xs, options={"frontend": frontend, "opt_level": opt})(
        *xs
    )
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.is_floating_point:
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5, equal_nan=True)
    else:
        assert torch.equal(got, want), (got, want)


FRONTS = [("export", "O3"), ("fx", "O0")]


@pytest.mark.parametrize(("frontend", "opt"), FRONTS)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_edges(name, frontend, opt):
    _check(Fn1(UNARY[name]), [EDGES.clone()], frontend, opt)


def _pairs():
    a = torch.tensor(
        [
            5.0,
            -5.0,
            5.0,
            -5.0,
            0.0,
            -0.0,
            7.5,
            math.inf,
            math.nan,
            1.0,
            0.0,
            3.0,
            -1e-3,
            2.0,
        ]
    )
    b = torch.tensor(
        [
            3.0,
            3.0,
            -3.0,
            -3.0,
            2.0,
            2.0,
            0.5,
            2.0,
            1.0,
            math.nan,
            0.0,
            math.inf,
            4.0,
            0.0,
        ]
    )
    return a, b


@pytest.mark.parametrize(("frontend", "opt"), FRONTS)
@pytest.mark.parametrize("name", list(BINARY))
def test_binary_edges(name, frontend, opt):
    a, b = _pairs()
    if name == "logical_xor":
        a, b = a > 0, b > 1
    _check(Fn2(BINARY[name]), [a, b], frontend, opt)


@pytest.mark.parametrize("name", INT_BINARY)
def test_integer_binary(name):
    a = torch.tensor([7, -7, 7, -7, 0, 9, -9, 1], dtype=torch.int64)
    b = torch.tensor([2, 2, -2, -2, 3, 4, 4, -1], dtype=torch.int64)
    _check(Fn2(BINARY[name]), [a, b], "export", "O3")


def test_integer_unary_keep_their_type():
    x = torch.tensor([-3, 0, 4], dtype=torch.int32)
    _check(
        Fn1(lambda v: torch.trunc(v) + torch.sign(v) + torch.round(v)), [x], "fx", "O0"
    )


def test_scalar_operands_and_broadcast():
    x = torch.randn(3, 4)
    _check(
        Fn1(lambda v: torch.remainder(v, 1.5) + v // 0.7 + torch.atan2(v, v[:1])),
        [x],
        "export",
        "O3",
    )


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=3),
    name=st.sampled_from(["asinh", "atan", "log2", "erfc", "frac", "elu", "round"]),
    seed=st.integers(0, 2**16),
)
def test_unary_drawn_shapes(shape, name, seed):
    x = torch.randn(shape, generator=torch.Generator().manual_seed(seed)) * 3
    _check(Fn1(UNARY[name]), [x], "export", "O0")
