"""Layouts in the IR: cuvil.relayout, which ops keep a layout, which refuse one."""

from __future__ import annotations

import pytest
import torch

from cuvil.errors import VerifyError
from cuvil.ir import DType, TensorType, Value, parse_module, print_module, verify
from cuvil.ir import ops as O
from cuvil.ir.interpreter import interpret

X = "tensor<1x4x6x6xf32>"
XN = "tensor<1x4x6x6xf32, nhwc>"
W = "tensor<8x4x3x3xf32>"


def _module(args: str, body: str, results: str) -> str:
    lines = "".join(f"    {line}\n" for line in body.strip().splitlines())
    return f"module @m {{\n  func @forward({args}) -> ({results}) {{\n{lines}  }}\n}}\n"


def _verify_error(text: str) -> VerifyError:
    with pytest.raises(VerifyError) as info:
        verify(parse_module(text))
    return info.value


def test_relayout_keeps_shape_and_dtype_and_sets_the_layout():
    v = Value(TensorType((1, 4, 6, 6), DType.f16), "x")
    op = O.RelayoutOp.build(v, layout="nhwc")
    assert op.result.type == TensorType((1, 4, 6, 6), DType.f16, "nhwc")
    back = O.RelayoutOp.build(op.result, layout="contiguous")
    assert back.result.type == v.type


def test_relayout_is_the_identity_on_values_and_round_trips_as_text():
    text = _module(
        f"%x: {X}",
        f"""
%n = cuvil.relayout(%x) {{layout = "nhwc"}} : ({X}) -> {XN}
%r = cuvil.relu(%n) : ({XN}) -> {XN}
%y = cuvil.relayout(%r) {{layout = "contiguous"}} : ({XN}) -> {X}
return %y
""",
        X,
    )
    m = verify(parse_module(text))
    printed = print_module(m)
    assert print_module(parse_module(printed)) == printed
    assert 'cuvil.relayout(%r) {layout = "contiguous"}' in printed
    x = torch.randn(1, 4, 6, 6)
    torch.testing.assert_close(interpret(m, [x])[0], torch.relu(x))


def test_relayout_to_a_layout_of_another_rank_is_rejected():
    text = _module(
        "%x: tensor<2x3xf32>",
        '%n = cuvil.relayout(%x) {layout = "nhwc"} : (tensor<2x3xf32>) -> '
        "tensor<2x3xf32, nhwc>\nreturn %n",
        "tensor<2x3xf32, nhwc>",
    )
    assert "layout nhwc needs rank 4" in str(_verify_error(text))


@pytest.mark.parametrize(
    "line, result",
    [
        (f"cuvil.conv2d(%x, %w) {{padding = [1, 1]}} : ({XN}, {W})", "1x8x6x6"),
        (
            f"cuvil.max_pool2d(%x) {{kernel = [2, 2], stride = [2, 2]}} : ({XN})",
            "1x4x3x3",
        ),
        (
            f"cuvil.avg_pool2d(%x) {{kernel = [3, 3], stride = [1, 1]}} : ({XN})",
            "1x4x4x4",
        ),
        (
            f"cuvil.batch_norm(%x, %s, %s) : ({XN}, tensor<4xf32>, tensor<4xf32>)",
            "1x4x6x6",
        ),
        (f"cuvil.relu(%x) : ({XN})", "1x4x6x6"),
        (f"cuvil.add(%x, %c) : ({XN}, tensor<f32>)", "1x4x6x6"),
        (  # global pooling inside NHWC regions (squeeze-and-excite, classifier heads)
            f"cuvil.adaptive_avg_pool2d(%x) {{output_size = [1, 1]}} : ({XN})",
            "1x4x1x1",
        ),
    ],
    ids=[
        "conv2d",
        "max_pool2d",
        "avg_pool2d",
        "batch_norm",
        "relu",
        "add_scalar",
        "adaptive_avg_pool2d",
    ],
)
def test_nhwc_capable_ops_keep_the_layout_of_their_input(line, result):
    out = f"tensor<{result}xf32, nhwc>"
    text = _module(
        f"%x: {XN}, %w: {W}, %s: tensor<4xf32>",
        f"%c = cuvil.constant() {{value = dense<1.0> : tensor<f32>}} : () -> tensor<f32>\n"
        f"%y = {line} -> {out}\nreturn %y",
        out,
    )
    verify(parse_module(text))


@pytest.mark.parametrize(
    "line, out",
    [
        (f"cuvil.reshape(%x) {{shape = [144]}} : ({XN})", "tensor<144xf32>"),
        (f"cuvil.permute(%x) {{dims = [0, 2, 3, 1]}} : ({XN})", "tensor<1x6x6x4xf32>"),
        (f"cuvil.sum(%x) {{dims = [1]}} : ({XN})", "tensor<1x6x6xf32>"),
        (f"cuvil.softmax(%x) {{dim = 1}} : ({XN})", "tensor<1x4x6x6xf32>"),
    ],
    ids=["reshape", "permute", "sum", "softmax"],
)
def test_ops_defined_on_row_major_buffers_refuse_nhwc_operands(line, out):
    text = _module(f"%x: {XN}", f"%y = {line} -> {out}\nreturn %y", out)
    msg = str(_verify_error(text))
    assert "operand 0 (%x) has layout nhwc, but this op takes contiguous only" in msg
    assert "insert cuvil.relayout(%x)" in msg


def test_conv_weight_must_stay_contiguous_and_grouped_conv_takes_no_nhwc():
    wn = "tensor<8x4x3x3xf32, nhwc>"
    out = "tensor<1x8x4x4xf32, nhwc>"
    bad_w = _module(
        f"%x: {XN}, %w: {wn}",
        f"%y = cuvil.conv2d(%x, %w) : ({XN}, {wn}) -> {out}\nreturn %y",
        out,
    )
    assert "weight must be contiguous" in str(_verify_error(bad_w))
    wg = "tensor<8x2x3x3xf32>"
    grouped = _module(
        f"%x: {XN}, %w: {wg}",
        f"%y = cuvil.conv2d(%x, %w) {{groups = 2}} : ({XN}, {wg}) -> {out}\nreturn %y",
        out,
    )
    assert "grouped convolution (groups = 2)" in str(_verify_error(grouped))


def test_conv_result_declared_contiguous_for_an_nhwc_input_is_rejected():
    out = "tensor<1x8x4x4xf32>"
    text = _module(
        f"%x: {XN}, %w: {W}",
        f"%y = cuvil.conv2d(%x, %w) : ({XN}, {W}) -> {out}\nreturn %y",
        out,
    )
    assert "type rule gives tensor<1x8x4x4xf32, nhwc>" in str(_verify_error(text))
