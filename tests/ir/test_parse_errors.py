"""Malformed `.cuvilir` input: always an IRParseError with file:line:col, the line and a caret."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ir_samples import SMALL_CNN_TEXT

from cuvil.errors import IRParseError, VerifyError
from cuvil.ir import Module, parse_file, parse_module, verify_all

HEAD = "func @f(%x: tensor<2xf32>) -> (tensor<2xf32>) {\n"


def _fn(*body: str) -> str:
    return HEAD + "".join(f"  {line}\n" for line in body) + "}\n"


def _error(text: str, file: str = "bad.cuvilir") -> IRParseError:
    with pytest.raises(IRParseError) as info:
        parse_module(text, file)
    return info.value


def _caret_is_right(err: IRParseError, text: str) -> bool:
    line = text.split("\n")[err.line - 1]
    return err.note == f"  {line}\n  {' ' * (err.col - 1)}^"


def _check(text: str, message: str, line: int, col: int) -> IRParseError:
    err = _error(text)
    assert message in err.message
    assert (err.where, err.line, err.col) == (f"bad.cuvilir:{line}:{col}", line, col)
    assert _caret_is_right(err, text)
    return err


def test_error_prints_as_where_error_message_then_line_and_caret():
    text = _fn("%y = cuvil.relu(%z) : (tensor<2xf32>) -> tensor<2xf32>", "return %y")
    err = _error(text)
    assert str(err) == "bad.cuvilir:2:19: error: use of undefined value %z"
    assert err.full().endswith(
        "\n    %y = cuvil.relu(%z) : (tensor<2xf32>) -> tensor<2xf32>\n                    ^"
    )


def test_unknown_op_suggests_the_closest_name():
    text = _fn("%y = cuvil.rleu(%x) : (tensor<2xf32>) -> tensor<2xf32>", "return %y")
    _check(text, "unknown op 'cuvil.rleu'; did you mean 'cuvil.relu'?", 2, 8)


def test_unknown_op_far_from_any_name_has_no_suggestion():
    text = _fn("%y = zzz(%x) : (tensor<2xf32>) -> tensor<2xf32>", "return %y")
    assert _check(text, "unknown op 'zzz'", 2, 8).message == "unknown op 'zzz'"


def test_use_of_undefined_value():
    _check(_fn("return %nope"), "use of undefined value %nope", 2, 10)


def test_redefined_value_is_rejected():
    text = _fn("%x = cuvil.relu(%x) : (tensor<2xf32>) -> tensor<2xf32>", "return %x")
    _check(text, "value %x is defined twice (SSA values are defined once)", 2, 3)


def test_duplicate_argument_name_is_rejected():
    _check(
        "func @f(%a: tensor<f32>, %a: tensor<f32>) -> () {\n}",
        "value %a is defined twice",
        1,
        26,
    )


def test_operand_used_at_the_wrong_type():
    text = _fn("%y = cuvil.relu(%x) : (tensor<3xf32>) -> tensor<3xf32>", "return %y")
    _check(text, "%x has type tensor<2xf32> but is used as tensor<3xf32>", 2, 19)


def test_signature_with_too_many_operand_types():
    text = _fn(
        "%y = cuvil.relu(%x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>",
        "return %y",
    )
    _check(text, "'cuvil.relu' has 1 operands but its signature lists 2 types", 2, 8)


def test_result_type_count_must_match_result_names():
    text = _fn(
        "%y = cuvil.relu(%x) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)",
        "return %y",
    )
    _check(text, "'cuvil.relu' declares 2 result types for 1 results", 2, 3)


def test_attribute_given_twice():
    text = _fn(
        "%y = cuvil.softmax(%x) {dim = 0, dim = 0} : (tensor<2xf32>) -> tensor<2xf32>",
        "return %y",
    )
    _check(text, "attribute 'dim' given twice", 2, 36)


def _const(dense: str) -> str:
    return _fn(
        f"%c = cuvil.constant() {{value = {dense}}} : () -> tensor<2xf32>", "return %c"
    )


def test_dense_with_the_wrong_element_count():
    _check(
        _const("dense<[1.0, 2.0, 3.0]> : tensor<2xf32>"),
        "dense value has 3 elements but tensor<2xf32> needs 2",
        2,
        34,
    )


def test_dense_integer_out_of_range():
    _check(
        _const("dense<300> : tensor<2xu8>"),
        "dense value does not fit tensor<2xu8>",
        2,
        34,
    )


def test_dense_negative_value_for_unsigned_type():
    _check(
        _const("dense<[1, -1]> : tensor<2xu8>"),
        "dense element -1 does not fit tensor<2xu8>",
        2,
        34,
    )


def test_dense_float_for_integer_type():
    _check(
        _const("dense<1.5> : tensor<2xi64>"),
        "dense element 1.5 does not fit tensor<2xi64>",
        2,
        34,
    )


def test_dense_integer_other_than_0_or_1_for_i1():
    _check(
        _const("dense<2> : tensor<2xi1>"),
        "dense element 2 does not fit tensor<2xi1>",
        2,
        34,
    )


def test_dense_needs_a_static_type():
    _check(
        _const("dense<1.0> : tensor<?xf32>"), "a dense value needs a static type", 2, 34
    )


def test_dense_with_a_non_number_element():
    _check(
        _const('dense<["a"]> : tensor<1xf32>'),
        "expected a number, found '\"a\"'",
        2,
        41,
    )


def test_malformed_tensor_type_gives_a_hint():
    err = _check(
        "param @w : tensor<2x-3xf32>\n",
        "malformed tensor type 'tensor<2x-3xf32>'",
        1,
        19,
    )
    assert "e.g. tensor<2x3xf32>" in err.hint


def test_tensor_type_without_angle_brackets():
    _check(
        "param @w : tensor 2x3\n",
        "malformed tensor type: expected 'tensor<...>'",
        1,
        12,
    )


def test_non_tensor_type():
    _check(
        "param @w : memref<2xf32>\n", "expected a tensor type, found 'memref'", 1, 12
    )


def test_unknown_element_type_lists_the_known_ones():
    _check(
        "param @w : tensor<2xf33>\n",
        "unknown element type 'f33' (known: f64, f32, f16, bf16, i64",
        1,
        19,
    )


def test_unknown_layout_lists_the_known_ones():
    _check(
        "param @w : tensor<2xf32, nchw>\n",
        "unknown layout 'nchw' (known: contiguous, nhwc",
        1,
        19,
    )


def test_integer_too_long_to_convert():
    _check(
        "param @w : tensor<" + "9" * 5000 + "xf32>\n",
        "integer of 5000 digits is too large",
        1,
        19,
    )


def test_unexpected_character():
    _check("module @m {\n  # comment\n}\n", "unexpected character '#'", 2, 3)


def test_control_byte_is_named_by_its_code():
    _check("module @m {\x01}", "unexpected byte 0x01", 1, 12)


def test_truncated_module():
    _check(
        "module @m {\n  param @w : tensor<2xf32>\n",
        "unexpected end of input: expected '}'",
        3,
        1,
    )


def test_truncated_function():
    _check(
        HEAD + "  %y = cuvil.relu(%x) : (tensor<2xf32>) -> tensor<2xf32>\n",
        "unexpected end of input inside a function: expected 'return'",
        3,
        1,
    )


def test_text_after_the_module():
    _check(
        "module @m {\n}\nfunc", "unexpected 'func' after the end of the module", 3, 1
    )


def test_junk_at_top_level():
    _check(
        "module @m {\n  return\n}", "expected 'param' or 'func', found 'return'", 2, 3
    )


def test_param_declared_twice():
    _check(
        "param @w : tensor<f32>\nparam @w : tensor<f32>\n",
        "param @w declared twice",
        2,
        7,
    )


def test_function_defined_twice():
    _check(_fn("return %x") + _fn("return %x"), "function @f defined twice", 4, 6)


def test_bad_location():
    text = _fn(
        "%y = cuvil.relu(%x) : (tensor<2xf32>) -> tensor<2xf32> loc(42)", "return %y"
    )
    _check(text, "expected a location, found '42'", 2, 62)


def test_line_number_in_location_must_be_an_integer():
    text = _fn(
        '%y = cuvil.relu(%x) : (tensor<2xf32>) -> tensor<2xf32> loc("m.py":1.5:0)',
        "return %y",
    )
    _check(text, "expected a line number, found '1.5'", 2, 69)


def test_invalid_utf8_file_is_a_parse_error_at_the_bad_byte(tmp_path):
    path = tmp_path / "bad.cuvilir"
    path.write_bytes(b"module @m {\n  \xff\n}\n")
    with pytest.raises(IRParseError) as info:
        parse_file(path)
    assert info.value.message.startswith("invalid UTF-8 byte 0xff")
    assert info.value.where == f"{path}:2:3"


# ---- properties: nothing but IRParseError (or a module) comes out of the parser -----------


def _parses_or_fails_cleanly(text: str) -> Module | None:
    try:
        return parse_module(text, "fuzz.cuvilir")
    except IRParseError as err:
        assert 1 <= err.line <= text.count("\n") + 1
        assert _caret_is_right(err, text)
        return None


def test_every_prefix_of_a_printed_module_raises_irparseerror_unless_empty_or_whole():
    parsed = [
        cut
        for cut in range(len(SMALL_CNN_TEXT) + 1)
        if _parses_or_fails_cleanly(SMALL_CNN_TEXT[:cut]) is not None
    ]
    assert parsed == [
        0,
        len(SMALL_CNN_TEXT) - 1,
        len(SMALL_CNN_TEXT),
    ]  # 0: empty module


@settings(max_examples=200, deadline=None)
@given(st.text() | st.binary().map(lambda b: b.decode("latin-1")))
def test_random_text_parses_or_raises_irparseerror(text: str):
    _parses_or_fails_cleanly(text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300) | st.binary().map(lambda b: SMALL_CNN_TEXT.encode() + b))
def test_random_bytes_in_a_file_parse_or_raise_irparseerror(
    tmp_path_factory, data: bytes
):
    path = tmp_path_factory.mktemp("fuzz") / "fuzz.cuvilir"
    path.write_bytes(data)
    try:
        parse_file(path)
    except IRParseError as err:
        assert err.file == str(path)


_TOKENS = [
    "%x",
    "%conv",
    "@fc.weight",
    '"',
    "\\",
    "<",
    ">",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    ",",
    ":",
    "=",
    "->",
    "?",
    "x",
    "0",
    "-1",
    "1.5e3",
    "nan",
    "inf",
    "tensor<",
    "f32",
    "i1",
    "dense<",
    "loc(",
    "fused[",
    "unknown",
    "return",
    "\n",
    "\xff",
    "é",
    "9" * 30,
]


@st.composite
def _mutants(draw) -> str:
    text = SMALL_CNN_TEXT
    for _ in range(draw(st.integers(1, 3))):
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 12)))
        text = (
            text[:start]
            + "".join(draw(st.lists(st.sampled_from(_TOKENS), max_size=3)))
            + text[end:]
        )
    return text


@settings(max_examples=200, deadline=None)
@given(_mutants())
def test_mutated_module_parses_or_raises_and_verifier_only_reports_verifyerrors(
    text: str,
):
    m = _parses_or_fails_cleanly(text)
    if m is not None:
        assert all(isinstance(e, VerifyError) for e in verify_all(m))
