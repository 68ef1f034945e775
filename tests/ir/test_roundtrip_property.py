"""Property: every module the printer writes parses back to the same text, and still verifies."""

from __future__ import annotations

import torch
from hypothesis import HealthCheck, given, settings
from ir_strategies import modules

from cuvil.ir import Module, parse_module, print_module, verify
from cuvil.ir.ops import ConstantOp

_FAST = [HealthCheck.too_slow, HealthCheck.data_too_large]


def _constants(m: Module) -> list[torch.Tensor]:
    return [
        op.attrs["value"]
        for fn in m.functions
        for op in fn.ops
        if isinstance(op, ConstantOp)
    ]


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if not a.dtype.is_floating_point:
        return torch.equal(a, b)
    same = (a == b) | (a.isnan() & b.isnan())
    return bool(same.all()) and torch.equal(a.signbit(), b.signbit())


@settings(max_examples=100, deadline=None, suppress_health_check=_FAST)
@given(modules())
def test_printed_module_parses_back_to_the_same_text_and_verifies(m: Module):
    verify(m)
    text = print_module(m)
    again = parse_module(text, "rt.cuvilir")
    assert print_module(again) == text
    verify(again)


@settings(max_examples=50, deadline=None, suppress_health_check=_FAST)
@given(modules(max_functions=1))
def test_round_trip_keeps_constants_bit_for_bit_and_names_params_op_order(m: Module):
    again = parse_module(print_module(m))
    pairs = list(zip(_constants(m), _constants(again), strict=True))
    assert all(_same_bits(a, b) for a, b in pairs)
    assert (again.name, again.params) == (m.name, m.params)
    assert [op.name for op in again.main.ops] == [op.name for op in m.main.ops]
