"""The verifier: each broken rule gives a VerifyError naming the op, where it is, and the rule."""

from __future__ import annotations

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuvil.errors import VerifyError
from cuvil.ir import (
    OPS,
    DType,
    Function,
    Loc,
    Module,
    SymbolRef,
    SymDim,
    TensorType,
    Value,
    parse_module,
    verify,
    verify_all,
)
from cuvil.ir import ops as O

T = "tensor<2x3xf32>"


def _fn(args: str, *body: str, results: str = T) -> str:
    lines = "".join(f"  {line}\n" for line in body)
    return f"func @f({args}) -> ({results}) {{\n{lines}}}\n"


def _error(text: str) -> VerifyError:
    m = parse_module(text, "bad.cuvilir")
    with pytest.raises(VerifyError) as info:
        verify(m)
    return info.value


# (args, op line, op name, rule): each op line is line 2, col 3 of its snippet.
OP_CASES = {
    "declared_result_type": (
        f"%x: {T}",
        f"%y = cuvil.relu(%x) : ({T}) -> tensor<3x2xf32>",
        "cuvil.relu",
        f"result 0 is declared tensor<3x2xf32> but the op's type rule gives {T}",
    ),
    "operand_count": (
        f"%x: {T}",
        f"%y = cuvil.add(%x) : ({T}) -> {T}",
        "cuvil.add",
        "expects 2 operands (lhs, rhs), got 1",
    ),
    "result_count": (
        f"%x: {T}",
        f"%y, %z = cuvil.relu(%x) : ({T}) -> ({T}, {T})",
        "cuvil.relu",
        "has 2 results but the op produces 1",
    ),
    "missing_attribute": (
        f"%x: {T}",
        f"%y = cuvil.sum(%x) : ({T}) -> tensor<f32>",
        "cuvil.sum",
        "missing required attribute 'dims'",
    ),
    "unknown_attribute": (
        f"%x: {T}",
        f"%y = cuvil.relu(%x) {{alpha = 1.0}} : ({T}) -> {T}",
        "cuvil.relu",
        "unknown attribute 'alpha' (known: inplace)",
    ),
    "attribute_kind": (
        f"%x: {T}",
        f"%y = cuvil.softmax(%x) {{dim = 1.5}} : ({T}) -> {T}",
        "cuvil.softmax",
        "attribute 'dim' must be an integer, got 1.5",
    ),
    "attribute_list_length": (
        "%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>",
        "%y = cuvil.conv2d(%x, %w) {stride = [1]} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>)"
        " -> tensor<1x4x6x6xf32>",
        "cuvil.conv2d",
        "attribute 'stride' must have 2 elements, got 1",
    ),
    "attribute_minimum": (
        f"%x: {T}",
        f"%y = cuvil.slice(%x) {{dim = 1, start = 0, end = 3, "
        f"step = 0}} : ({T}) -> {T}",
        "cuvil.slice",
        "attribute 'step' must be >= 1, got 0",
    ),
    "attribute_choice": (
        f"%x: {T}",
        f'%y = cuvil.gelu(%x) {{approximate = "fast"}} : ({T}) -> {T}',
        "cuvil.gelu",
        'attribute \'approximate\' must be one of "none", "tanh", got "fast"',
    ),
    "dim_out_of_range": (
        f"%x: {T}",
        f"%y = cuvil.softmax(%x) {{dim = 2}} : ({T}) -> {T}",
        "cuvil.softmax",
        "dim 2 is out of range for rank 2 (valid: 0..1)",
    ),
    "repeated_reduce_dim": (
        f"%x: {T}",
        f"%y = cuvil.sum(%x) {{dims = [0, 0]}} : ({T}) -> {T}",
        "cuvil.sum",
        "dims [0, 0] repeat a dim",
    ),
    "shapes_do_not_broadcast": (
        f"%a: {T}, %b: tensor<4x3xf32>",
        f"%y = cuvil.add(%a, %b) : ({T}, tensor<4x3xf32>) -> {T}",
        "cuvil.add",
        f"shapes do not broadcast: {T} and tensor<4x3xf32>",
    ),
    "binary_dtype_mismatch": (
        f"%a: {T}, %b: tensor<2x3xf16>",
        f"%y = cuvil.mul(%a, %b) : ({T}, tensor<2x3xf16>) -> {T}",
        "cuvil.mul",
        f"operand element types differ: {T} vs tensor<2x3xf16> (insert cuvil.cast)",
    ),
    "layouts_differ": (
        "%a: tensor<1x2x3x4xf32, nhwc>, %b: tensor<1x2x3x4xf32>",
        "%y = cuvil.add(%a, %b) : (tensor<1x2x3x4xf32, nhwc>, tensor<1x2x3x4xf32>)"
        " -> tensor<1x2x3x4xf32>",
        "cuvil.add",
        "operands have different layouts: contiguous, nhwc",
    ),
    "float_only": (
        "%x: tensor<2xi64>",
        "%y = cuvil.exp(%x) : (tensor<2xi64>) -> tensor<2xi64>",
        "cuvil.exp",
        "operand must be a float tensor, got tensor<2xi64> (insert cuvil.cast)",
    ),
    "where_condition_not_i1": (
        f"%c: {T}, %x: {T}",
        f"%y = cuvil.where(%c, %x, %x) : ({T}, {T}, {T}) -> {T}",
        "cuvil.where",
        f"condition must be i1, got {T}",
    ),
    "clamp_without_bounds": (
        f"%x: {T}",
        f"%y = cuvil.clamp(%x) : ({T}) -> {T}",
        "cuvil.clamp",
        "needs a 'min' or a 'max' attribute",
    ),
    "clamp_min_above_max": (
        f"%x: {T}",
        f"%y = cuvil.clamp(%x) {{max = 0.0, min = 6.0}} : ({T}) -> {T}",
        "cuvil.clamp",
        "min 6.0 is greater than max 0.0",
    ),
    "conv_channels": (
        "%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>",
        "%y = cuvil.conv2d(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> "
        "tensor<1x4x6x6xf32>",
        "cuvil.conv2d",
        "input channels 3 != weight in-channels 2 x groups 1",
    ),
    "conv_symbolic_weight": (
        "%x: tensor<1x3x8x8xf32>, %w: tensor<?x3x3x3xf32>",
        "%y = cuvil.conv2d(%x, %w) : (tensor<1x3x8x8xf32>, "
        "tensor<?x3x3x3xf32>) -> tensor<1x?x6x6xf32>",
        "cuvil.conv2d",
        "weight must have a static shape, got tensor<?x3x3x3xf32>",
    ),
    "conv_window_too_big": (
        "%x: tensor<1x3x2x2xf32>, %w: tensor<4x3x3x3xf32>",
        "%y = cuvil.conv2d(%x, %w) : (tensor<1x3x2x2xf32>, tensor<4x3x3x3xf32>)"
        " -> tensor<1x4x1x1xf32>",
        "cuvil.conv2d",
        "output size 0 in spatial dim 0 is too small",
    ),
    "matmul_k": (
        f"%a: {T}, %b: tensor<4x5xf32>",
        f"%y = cuvil.matmul(%a, %b) : ({T}, tensor<4x5xf32>) -> tensor<2x5xf32>",
        "cuvil.matmul",
        f"contraction dims differ: {T} @ tensor<4x5xf32> (K 3 vs 4)",
    ),
    "linear_in_features": (
        f"%x: {T}, %w: tensor<5x4xf32>",
        f"%y = cuvil.linear(%x, %w) : ({T}, tensor<5x4xf32>) -> tensor<2x5xf32>",
        "cuvil.linear",
        "in-features differ",
    ),
    "batch_norm_stats": (
        "%x: tensor<2x3xf32>, %m: tensor<4xf32>",
        f"%y = cuvil.batch_norm(%x, %m, %m) : ({T}, tensor<4xf32>, "
        f"tensor<4xf32>) -> {T}",
        "cuvil.batch_norm",
        "running_mean must have shape [3], got tensor<4xf32>",
    ),
    "layer_norm_shape": (
        f"%x: {T}",
        f"%y = cuvil.layer_norm(%x) {{normalized_shape = [2]}} : ({T}) -> {T}",
        "cuvil.layer_norm",
        f"normalized_shape [2] must be the trailing dims of {T}",
    ),
    "pool_padding": (
        "%x: tensor<1x1x4x4xf32>",
        "%y = cuvil.max_pool2d(%x) {kernel = [2, 2], "
        "padding = [2, 0]} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>",
        "cuvil.max_pool2d",
        "padding 2 must be at most half the kernel size 2",
    ),
    "embedding_indices": (
        "%w: tensor<5x2xf32>, %i: tensor<3xf32>",
        "%y = cuvil.embedding(%w, %i) : (tensor<5x2xf32>, tensor<3xf32>) -> "
        "tensor<3x2xf32>",
        "cuvil.embedding",
        "indices must be i64 or i32, got tensor<3xf32>",
    ),
    "reshape_element_count": (
        f"%x: {T}",
        f"%y = cuvil.reshape(%x) {{shape = [4, 2]}} : ({T}) -> tensor<4x2xf32>",
        "cuvil.reshape",
        f"shape [4, 2] has 8 elements but input {T} has 6",
    ),
    "reshape_two_inferred_dims": (
        f"%x: {T}",
        f"%y = cuvil.reshape(%x) {{shape = [-1, -1]}} : ({T}) -> {T}",
        "cuvil.reshape",
        "at most one dim of 'shape' may be -1",
    ),
    "bad_permutation": (
        f"%x: {T}",
        f"%y = cuvil.permute(%x) {{dims = [0, 0]}} : ({T}) -> {T}",
        "cuvil.permute",
        "dims [0, 0] is not a permutation of 0..1",
    ),
    "expand_non_unit_dim": (
        f"%x: {T}",
        f"%y = cuvil.expand(%x) {{shape = [4, 3]}} : ({T}) -> tensor<4x3xf32>",
        "cuvil.expand",
        "dim 0 of size 2 cannot expand to 4 (only size 1 can)",
    ),
    "slice_end_past_size": (
        f"%x: {T}",
        f"%y = cuvil.slice(%x) {{dim = 1, end = 5, start = 0}} : "
        f"({T}) -> tensor<2x5xf32>",
        "cuvil.slice",
        "end 5 is past the size 3 of dim 1",
    ),
    "slice_start_after_end": (
        f"%x: {T}",
        f"%y = cuvil.slice(%x) {{dim = 1, end = 1, start = 2}} : ({T}) -> {T}",
        "cuvil.slice",
        "start 2 is after end 1",
    ),
    "cat_mismatch": (
        f"%a: {T}, %b: tensor<2x4xf32>",
        f"%y = cuvil.cat(%a, %b) {{dim = 0}} : ({T}, tensor<2x4xf32>) -> {T}",
        "cuvil.cat",
        f"input 1 is tensor<2x4xf32>; dim 1 must match {T}",
    ),
    "result_layout_rank": (
        f"%x: {T}",
        f"%y = cuvil.reshape(%x) {{shape = [6]}} : ({T}) -> tensor<6xf32, nhwc>",
        "cuvil.reshape",
        "result 0 has type tensor<6xf32, nhwc>, but layout nhwc needs rank 4",
    ),
    "undeclared_param": (
        "",
        f"%y = cuvil.param() {{name = @w}} : () -> {T}",
        "cuvil.param",
        "refers to undeclared param @w (declare it: param @w : <type>)",
    ),
}


@pytest.mark.parametrize("case", list(OP_CASES))
def test_broken_op_rule_names_op_cuvilir_position_and_rule(case: str):
    args, line, op_name, rule = OP_CASES[case]
    err = _error(_fn(args, line, "return %y"))
    assert err.where == "bad.cuvilir:2:3"
    assert err.message.startswith(f"'{op_name}' (unknown location): ")
    assert rule in err.message
    assert str(err).startswith("bad.cuvilir:2:3: error: ")


def test_enough_distinct_rules_are_covered():
    assert len(OP_CASES) >= 30


def test_param_type_mismatch_names_the_declared_type():
    text = "param @w : tensor<3xf32>\n" + _fn(
        "", f"%y = cuvil.param() {{name = @w}} : () -> {T}", "return %y"
    )
    err = _error(text)
    assert err.where == "bad.cuvilir:3:3"
    assert (
        f"result type {T} differs from the declared param @w : tensor<3xf32>"
        in err.message
    )


def test_error_names_the_model_location_of_a_parsed_op():
    err = _error(
        _fn(
            f"%x: {T}",
            f'%y = cuvil.exp(%x) : ({T}) -> tensor<2xf32> loc("exp_1" at '
            '"model.py":12:8)',
            "return %y",
        )
    )
    assert err.where == "bad.cuvilir:2:3"
    assert err.message.startswith(
        "'cuvil.exp' (model.py:12:8 (FX node 'exp_1')): result 0"
    )


def test_return_type_must_match_the_signature():
    err = _error(_fn(f"%x: {T}", "return %x", results="tensor<3x2xf32>"))
    assert err.message == f"@f returns ({T}) but its signature says (tensor<3x2xf32>)"


def test_function_must_return_something():
    assert (
        _error(_fn(f"%x: {T}", "return", results="")).message
        == "function @f returns nothing"
    )


def test_argument_layout_needs_its_rank():
    err = _error(_fn(f"%x: {T[:-1]}, nhwc>", "return %x", results=f"{T[:-1]}, nhwc>"))
    assert err.message == (
        "argument %x of @f has type tensor<2x3xf32, nhwc>, but layout nhwc needs rank 4"
    )


def test_module_without_functions_is_rejected():
    with pytest.raises(VerifyError, match="module @m has no function"):
        verify(Module("m"))


# ---- IR built in Python: rules the parser cannot even express ------------------------------

NEG = O.UNARY_OPS["cuvil.neg"]
F32 = TensorType((2, 3), DType.f32)


def _chain() -> tuple[Module, Function]:
    m = Module("m")
    fn = m.add_function(Function("f"))
    x = fn.add_arg(F32, "x")
    a = fn.append(
        NEG.build(x, name="a", loc=Loc(node="neg", file="m.py", line=7, col=3))
    )
    b = fn.append(
        NEG.build(a.result, name="b", loc=Loc(node="neg_1", file="m.py", line=8, col=3))
    )
    fn.set_outputs([b.result])
    return m, fn


def test_use_before_def_names_the_op_and_its_python_source():
    m, fn = _chain()
    fn.ops.reverse()
    with pytest.raises(VerifyError) as info:
        verify(m)
    assert info.value.where == "m.py:8:3"
    assert info.value.message == (
        "'cuvil.neg' (m.py:8:3 (FX node 'neg_1')): operand 0 (%a) is used before it is "
        "defined (SSA values must dominate their uses)"
    )


def test_operand_missing_from_use_list():
    m, fn = _chain()
    fn.ops[1].operands[0] = fn.args[0]
    with pytest.raises(
        VerifyError, match=r"operand 0 \(%x\) is missing from the value's use list"
    ):
        verify(m)


def test_returning_a_value_of_another_function():
    m, fn = _chain()
    other = m.add_function(Function("g"))
    other.set_outputs([fn.args[0]])
    with pytest.raises(VerifyError, match="@g returns %x, which is not defined in it"):
        verify(m)


def test_negative_dim_in_an_argument_type():
    m = Module("m")
    fn = m.add_function(Function("f"))
    fn.set_outputs([fn.add_arg(TensorType((-1, 3), DType.f32), "x")])
    with pytest.raises(
        VerifyError, match=r"argument %x of @f has a negative dim: tensor<-1x3xf32>"
    ):
        verify(m)


def test_unknown_layout_in_an_argument_type():
    m = Module("m")
    fn = m.add_function(Function("f"))
    fn.set_outputs([fn.add_arg(TensorType((2,), DType.f32, "diagonal"), "x")])
    with pytest.raises(
        VerifyError, match="argument %x of @f has unknown layout 'diagonal'"
    ):
        verify(m)


def test_param_data_must_match_its_declared_type():
    m, _ = _chain()
    m.add_param("w", data=torch.zeros(2))
    m.params["w"] = TensorType((3,), DType.f32)
    with pytest.raises(
        VerifyError,
        match=r"param @w is declared tensor<3xf32> but its data is "
        r"\(2,\) torch.float32",
    ):
        verify(m)


def test_verify_all_reports_every_error_in_order():
    m, fn = _chain()
    fn.ops[0].attrs["alpha"] = 1.0
    fn.ops[1].attrs["beta"] = 2.0
    fn.result_types = [TensorType((3,), DType.f32)]
    messages = [e.message for e in verify_all(m)]
    assert len(messages) == 3
    assert (
        "unknown attribute 'alpha'" in messages[0]
        and "unknown attribute 'beta'" in messages[1]
    )
    assert messages[2].startswith("@f returns")


def test_valid_module_verifies_and_is_returned():
    m, _ = _chain()
    assert verify(m) is m and verify_all(m) == []


# ---- property: whatever the operands and attributes, only VerifyError comes out -----------

_dims = st.integers(0, 4) | st.sampled_from([SymDim(), SymDim("b")])
_types = st.builds(
    lambda s, d: TensorType(tuple(s), d),
    st.lists(_dims, max_size=4),
    st.sampled_from(list(DType)),
)


def _attr_values(spec):
    ints = st.integers(-2, 5)
    by_kind = {
        "int": ints,
        "float": st.floats(),
        "bool": st.booleans(),
        "dtype": st.sampled_from(list(DType)),
        "str": st.sampled_from([*(spec.choices or ()), "x"]),
        "symbol": st.just(SymbolRef("p")),
        "dense": st.just(torch.zeros(2)),
        "scalar": ints | st.floats(),
        "ints": st.lists(ints | (_dims if spec.sym else ints), max_size=5).map(tuple),
        "floats": st.lists(st.floats(), max_size=3).map(tuple),
    }
    return by_kind[spec.kind]


@st.composite
def _arbitrary_ops(draw):
    cls = draw(st.sampled_from(sorted(OPS.values(), key=lambda c: c.name)))
    operands = [Value(draw(_types), f"v{i}") for i in range(draw(st.integers(0, 5)))]
    attrs = {
        k: draw(_attr_values(spec))
        for k, spec in cls.ATTRS.items()
        if draw(st.booleans())
    }
    return cls(operands, cls.with_defaults(attrs), [draw(_types)])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_arbitrary_ops())
def test_op_checks_raise_only_verifyerror_on_arbitrary_operands_and_attributes(op):
    m = Module("m")
    fn = m.add_function(Function("f", args=list(op.operands), ops=[op]))
    fn.set_outputs(op.results)
    assert all(isinstance(e, VerifyError) for e in verify_all(m))


INPLACE_PROBLEMS = {
    "used later": (
        "%a = cuvil.exp(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
        "    %b = cuvil.relu(%a) {inplace = 0} : (tensor<4xf32>) -> tensor<4xf32>\n"
        "    %c = cuvil.add(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
        "    return %c",
        "is used after this op",
    ),
    "type differs": (
        "%a = cuvil.exp(%s) : (tensor<1xf32>) -> tensor<1xf32>\n"
        "    %c = cuvil.add(%x, %a) {inplace = 1} : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>\n"
        "    return %c",
        "differ",
    ),
    "no such operand": (
        "%b = cuvil.relu(%x) {inplace = 3} : (tensor<4xf32>) -> tensor<4xf32>\n    return %b",
        "names no operand",
    ),
    "not elementwise": (
        "%b = cuvil.softmax(%x) {dim = 0, inplace = 0} : (tensor<4xf32>) -> tensor<4xf32>\n"
        "    return %b",
        "unknown attribute 'inplace'",
    ),
}


@pytest.mark.parametrize("case", INPLACE_PROBLEMS, ids=str)
def test_illegal_inplace_hints_are_rejected(case):
    from cuvil.ir import parse_module, verify_all

    body, message = INPLACE_PROBLEMS[case]
    text = (
        "module @m {\n  func @forward(%x: tensor<4xf32>, %s: tensor<1xf32>) -> "
        f"(tensor<4xf32>) {{\n    {body}\n  }}\n}}\n"
    )
    errors = verify_all(parse_module(text, "bad.cuvilir"))
    assert errors and message in str(errors[0]), errors
