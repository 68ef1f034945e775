"""Tensor types: element types, symbolic dims, layouts, text form and broadcasting."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from cuvil.errors import IRParseError
from cuvil.ir import DType, SymDim, TensorType, broadcast_shapes, parse_type

B, ANY = SymDim("batch"), SymDim()


@pytest.mark.parametrize("dtype", list(DType))
def test_dtype_round_trips_through_torch(dtype: DType):
    assert DType.from_torch(dtype.torch) is dtype


def test_dtype_from_torch_rejects_types_without_a_cuvil_dtype():
    with pytest.raises(ValueError, match="complex64 has no Cuvil element type"):
        DType.from_torch(torch.complex64)


def test_dtype_kinds_split_float_int_and_bool():
    assert [d for d in DType if d.is_float] == [
        DType.f64,
        DType.f32,
        DType.f16,
        DType.bf16,
    ]
    assert not DType.i1.is_int and not DType.i1.is_float
    assert DType.u8.is_int and not DType.f16.is_int


def test_tensor_type_prints_dims_dtype_and_layout():
    assert (
        str(TensorType((2, B, ANY, 4), DType.f32, "nhwc"))
        == "tensor<2x[batch]x?x4xf32, nhwc>"
    )


def test_zero_rank_tensor_type_prints_just_the_dtype():
    assert str(TensorType((), DType.i1)) == "tensor<i1>"


def test_symdim_prints_question_mark_or_bracketed_name():
    assert (str(ANY), str(B)) == ("?", "[batch]")


def test_numel_is_none_for_symbolic_shapes():
    assert TensorType((2, 3, 0), DType.f32).numel() == 0
    assert TensorType((), DType.f32).numel() == 1
    assert TensorType((2, B), DType.f32).numel() is None


def test_is_static_and_rank():
    t = TensorType((2, B), DType.f32)
    assert (t.rank, t.is_static, t.with_shape((2, 3)).is_static) == (2, False, True)


def test_with_dtype_keeps_shape_and_layout():
    t = TensorType((1, 2, 3, 4), DType.f32, "nhwc").with_dtype(DType.f16)
    assert t == TensorType((1, 2, 3, 4), DType.f16, "nhwc")


def test_tensor_type_of_a_torch_tensor():
    assert TensorType.of(torch.zeros(2, 3, dtype=torch.int32)) == TensorType(
        (2, 3), DType.i32
    )


@pytest.mark.parametrize(
    "text",
    [
        "tensor<2x[batch]x?x4xf32, nhwc>",
        "tensor<bf16>",
        "tensor<0x1xu8>",
        "tensor<[n]xi1>",
    ],
)
def test_parse_type_reads_what_str_writes(text: str):
    assert str(parse_type(text)) == text


def test_parse_type_rejects_trailing_text():
    with pytest.raises(IRParseError, match="after the type"):
        parse_type("tensor<f32> x")


@pytest.mark.parametrize(
    "shapes, want",
    [
        (((2, 3), (3,)), (2, 3)),
        (((2, 1), (1, 4)), (2, 4)),
        (((), (5,)), (5,)),
        (((0,), (1,)), (0,)),
        (((4, 1, 3), (2, 1), (1,)), (4, 2, 3)),
        ((), ()),
    ],
)
def test_broadcast_shapes_of_static_shapes(shapes, want):
    assert broadcast_shapes(*shapes) == want


@pytest.mark.parametrize("shapes", [((2, 3), (4, 3)), ((0,), (3,)), ((2,), (1, 3))])
def test_broadcast_shapes_is_none_when_shapes_do_not_broadcast(shapes):
    assert broadcast_shapes(*shapes) is None


def test_broadcast_keeps_symbolic_dims_against_one():
    assert broadcast_shapes((B, 3), (1, 3)) == (B, 3)
    assert broadcast_shapes((1,), (ANY,)) == (ANY,)


def test_broadcast_prefers_a_named_symbol_over_an_anonymous_one():
    assert broadcast_shapes((ANY,), (B,)) == (B,)
    assert broadcast_shapes((B,), (ANY,)) == (B,)


def test_broadcast_of_symbolic_and_static_dim_takes_the_static_size():
    assert broadcast_shapes((B, 3), (4, 3)) == (4, 3)
    assert broadcast_shapes((4,), (ANY,)) == (4,)


_shapes = st.lists(st.integers(0, 3), max_size=4).map(tuple)


@settings(max_examples=200, deadline=None)
@given(st.lists(_shapes, min_size=1, max_size=3))
def test_broadcast_shapes_agrees_with_torch_on_static_shapes(shapes):
    try:
        want = tuple(torch.broadcast_shapes(*shapes))
    except RuntimeError:
        want = None
    assert broadcast_shapes(*shapes) == want
