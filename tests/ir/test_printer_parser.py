"""The `.cuvilir` text format: exact printed forms, and the parser reading them back."""

from __future__ import annotations

import math

import pytest
import torch
from ir_samples import SMALL_CNN_TEXT, small_cnn

from cuvil.ir import (
    DType,
    Function,
    Loc,
    Module,
    SymbolRef,
    SymDim,
    TensorType,
    parse_file,
    parse_module,
    print_module,
    verify,
)
from cuvil.ir import ops as O
from cuvil.ir.attributes import format_attr

F32 = TensorType((2, 3), DType.f32)


def _one_op_module(make, arg_type: TensorType = F32, arg_name: str = "x") -> Module:
    m = Module("m")
    fn = m.add_function(Function("forward"))
    op = fn.append(make(fn.add_arg(arg_type, arg_name)))
    fn.set_outputs(op.results)
    return m


def test_small_cnn_prints_exactly_the_golden_text():
    assert print_module(small_cnn()) == SMALL_CNN_TEXT


def test_golden_text_parses_back_to_the_same_text():
    assert print_module(parse_module(SMALL_CNN_TEXT)) == SMALL_CNN_TEXT


def test_golden_text_verifies_after_parsing():
    verify(parse_module(SMALL_CNN_TEXT))


def test_module_str_is_the_printed_text():
    assert str(small_cnn()) == SMALL_CNN_TEXT


def test_parse_file_reads_a_cuvilir_file(tmp_path):
    path = tmp_path / "net.cuvilir"
    path.write_text(SMALL_CNN_TEXT, encoding="utf-8")
    m = parse_file(path)
    assert (m.name, m.main.name, len(m.params)) == ("small_cnn", "forward", 5)


def test_bare_declarations_without_module_wrapper_take_the_file_stem(tmp_path):
    path = tmp_path / "bare.cuvilir"
    path.write_text(
        "param @w : tensor<2xf32>\nfunc @f(%x: tensor<2xf32>) -> (tensor<2xf32>) {\n"
        "  return %x\n}\n"
    )
    m = parse_file(path)
    assert (m.name, list(m.params), m.main.name) == ("bare", ["w"], "f")


def test_comments_and_missing_locs_are_accepted():
    m = parse_module(
        "// a comment\nfunc @f(%x: tensor<2xf32>) -> (tensor<2xf32>) { // why\n"
        "  %y = cuvil.relu(%x) : (tensor<2xf32>) -> tensor<2xf32>\n  return %y\n}"
    )
    assert m.main.ops[0].loc.is_unknown


def test_parser_fills_in_default_attributes_left_out_of_hand_written_text():
    m = parse_module(
        "func @f(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> (tensor<1x4x6x6xf32>) {\n"
        "  %y = cuvil.conv2d(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)"
        " -> tensor<1x4x6x6xf32>\n  return %y\n}\n"
    )
    verify(m)
    assert m.main.ops[0].attrs == {
        "stride": (1, 1),
        "padding": (0, 0),
        "dilation": (1, 1),
        "groups": 1,
    }


def test_parsed_op_records_its_file_line_col():
    m = parse_module(SMALL_CNN_TEXT, "cnn.cuvilir")
    conv = m.main.ops[3]
    assert (conv.name, conv.src_pos) == ("cuvil.conv2d", ("cnn.cuvilir", 11, 5))


def test_parsed_locs_keep_node_module_and_source():
    relu = parse_module(SMALL_CNN_TEXT).main.ops[5]
    assert relu.loc.parts[1] == Loc(node="clamp", file='we"ird\\file.py')
    assert relu.loc.source() == "samples/cnn.py:14:16"


def test_values_get_their_hint_names_made_unique():
    m = Module("m")
    fn = m.add_function(Function("f"))
    x = fn.add_arg(F32, "v")
    a = fn.append(O.UNARY_OPS["cuvil.neg"].build(x, name="v")).result
    b = fn.append(O.UNARY_OPS["cuvil.neg"].build(a, name="v")).result
    fn.set_outputs([b])
    body = print_module(m)
    assert "%v_1 = cuvil.neg(%v)" in body and "%v_2 = cuvil.neg(%v_1)" in body


def test_value_hints_with_odd_characters_are_sanitized():
    m = _one_op_module(
        lambda x: O.UNARY_OPS["cuvil.neg"].build(x, name="a b/ü"), arg_name="0"
    )
    assert "%a_b__ = cuvil.neg(%0)" in print_module(m)


def test_anonymous_values_are_numbered_around_hint_names():
    m = _one_op_module(lambda x: O.UNARY_OPS["cuvil.neg"].build(x), arg_name="0")
    assert "%1 = cuvil.neg(%0)" in print_module(m)


def test_function_and_param_names_needing_quotes_are_quoted():
    m = _one_op_module(lambda x: O.UNARY_OPS["cuvil.neg"].build(x))
    m.main.name = "my fn"
    m.add_param('w "1"', type=F32)
    text = print_module(m)
    assert 'func @"my fn"(' in text and 'param @"w \\"1\\"" :' in text
    assert print_module(parse_module(text)) == text


def test_several_functions_print_and_parse_in_order():
    m = _one_op_module(lambda x: O.UNARY_OPS["cuvil.neg"].build(x))
    second = m.add_function(Function("helper"))
    second.set_outputs([second.add_arg(F32, "y")])
    again = parse_module(print_module(m))
    assert [f.name for f in again.functions] == ["forward", "helper"]
    assert again.lookup("helper").outputs == again.lookup("helper").args


@pytest.mark.parametrize(
    "value, text",
    [
        (torch.tensor(2.0), "dense<2.0> : tensor<f32>"),
        (torch.ones(2, 2, dtype=torch.int64), "dense<1> : tensor<2x2xi64>"),
        (torch.tensor([0.0, -0.0]), "dense<[0.0, -0.0]> : tensor<2xf32>"),
        (torch.tensor([-0.0, -0.0]), "dense<-0.0> : tensor<2xf32>"),
        (torch.full((3,), math.nan), "dense<nan> : tensor<3xf32>"),
        (
            torch.tensor([math.inf, -math.inf, 1e-300], dtype=torch.float64),
            "dense<[inf, -inf, 1e-300]> : tensor<3xf64>",
        ),
        (torch.tensor([True, False]), "dense<[true, false]> : tensor<2xi1>"),
        (torch.zeros(0, 3), "dense<[]> : tensor<0x3xf32>"),
        (torch.tensor([-(2**63)]), "dense<-9223372036854775808> : tensor<1xi64>"),
    ],
)
def test_dense_attribute_text(value: torch.Tensor, text: str):
    assert format_attr(value) == text


@pytest.mark.parametrize(
    "value, text",
    [
        ((1, SymDim("batch"), SymDim()), "[1, [batch], ?]"),
        ((0.5, 1e20), "[0.5, 1e+20]"),
        (DType.bf16, "bf16"),
        (SymbolRef("layer1.0.conv1.weight"), "@layer1.0.conv1.weight"),
        (SymbolRef("a b"), '@"a b"'),
        ('say "hi"\n', '"say \\"hi\\"\\n"'),
        (False, "false"),
        (3.0, "3.0"),
        (-math.inf, "-inf"),
    ],
)
def test_attribute_text(value, text: str):
    assert format_attr(value) == text


def test_op_repr_is_its_text_line():
    op = O.ReshapeOp.build(Function("f").add_arg(F32, "x"), shape=(6,), name="r")
    assert repr(op) == (
        "%r = cuvil.reshape(%x) {shape = [6]} : (tensor<2x3xf32>) -> "
        "tensor<6xf32> loc(unknown)"
    )
