"""Kernels on channels-last buffers: relayout, pointwise, batch norm, pools, NHWC GEMM conv."""

from __future__ import annotations

import pytest
import torch

from cuvil.codegen.kernel import physical_strides
from cuvil.errors import CodegenError
from cuvil.ir import DType, TensorType, parse_module
from cuvil.ir.interpreter import interpret, random_params
from cuvil.options import CompileOptions
from cuvil.pipeline import compile_module


def _run(text: str, pipeline: str = "", threads: int = 1) -> None:
    """Compiled (after `pipeline`) == interpreted, on random inputs and params."""
    want_mod = random_params(parse_module(text), 0)
    gen = torch.Generator().manual_seed(0)
    xs = [
        torch.randn([int(d) for d in a.type.shape], generator=gen)
        for a in want_mod.main.args
    ]
    want = interpret(want_mod, xs)
    got_mod = random_params(parse_module(text), 0)
    cm = compile_module(
        got_mod,
        CompileOptions.parse(pipeline=pipeline, num_threads=threads, verify_each=True),
    )
    got = cm(*xs)
    got = got if isinstance(got, tuple) else (got,)
    for w, g in zip(want, got, strict=True):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "shape, layout",
    [((2, 3, 4, 5), "nhwc"), ((2, 3, 7), "nwc"), ((1, 16, 1, 1), "nhwc")],
)
def test_physical_strides_match_torch_channels_last(shape, layout):
    t = TensorType(shape, DType.f32, layout)
    last = torch.empty(shape[0], *shape[2:], shape[1]).movedim(-1, 1)
    assert physical_strides(t) == last.stride()


def test_blocked_layouts_have_no_strides():
    with pytest.raises(CodegenError, match="nchw16c"):
        physical_strides(TensorType((1, 16, 2, 2), DType.f32, "nchw16c"))


def test_pointwise_broadcast_batch_norm_and_pools_on_nhwc_buffers():
    T, P = "tensor<2x5x7x6xf32, nhwc>", "tensor<2x5x4x4xf32, nhwc>"
    B = "tensor<1x5x1x1xf32, nhwc>"
    text = f"""
module @m {{
  param @k : tensor<1x5x1x1xf32>
  param @mean : tensor<5xf32>
  param @var : tensor<5xf32>
  func @forward(%x: tensor<2x5x7x6xf32>) -> (tensor<2x5x4x4xf32>, tensor<2x5x7x6xf32>) {{
    %k = cuvil.param() {{name = @k}} : () -> tensor<1x5x1x1xf32>
    %mean = cuvil.param() {{name = @mean}} : () -> tensor<5xf32>
    %var = cuvil.param() {{name = @var}} : () -> tensor<5xf32>
    %xn = cuvil.relayout(%x) {{layout = "nhwc"}} : (tensor<2x5x7x6xf32>) -> {T}
    %kn = cuvil.relayout(%k) {{layout = "nhwc"}} : (tensor<1x5x1x1xf32>) -> {B}
    %m = cuvil.mul(%xn, %kn) : ({T}, {B}) -> {T}
    %v = cuvil.abs(%var) : (tensor<5xf32>) -> tensor<5xf32>
    %bn = cuvil.batch_norm(%m, %mean, %v) : ({T}, tensor<5xf32>, tensor<5xf32>) -> {T}
    %p = cuvil.max_pool2d(%bn) {{kernel = [3, 2], stride = [2, 2], padding = [1, 1], ceil_mode = true}} : ({T}) -> {P}
    %a = cuvil.avg_pool2d(%bn) {{kernel = [3, 3], stride = [1, 1], padding = [1, 1], count_include_pad = false}} : ({T}) -> {T}
    %pc = cuvil.relayout(%p) {{layout = "contiguous"}} : ({P}) -> tensor<2x5x4x4xf32>
    %ac = cuvil.relayout(%a) {{layout = "contiguous"}} : ({T}) -> tensor<2x5x7x6xf32>
    return %pc, %ac
  }}
}}
"""
    _run(text)
    _run(text, "fuse-elementwise")


def test_nwc_relayout_round_trip_with_elementwise_in_between():
    T = "tensor<2x3x7xf32, nwc>"
    text = f"""
module @m {{
  func @forward(%x: tensor<2x3x7xf32>) -> (tensor<2x3x7xf32>) {{
    %n = cuvil.relayout(%x) {{layout = "nwc"}} : (tensor<2x3x7xf32>) -> {T}
    %e = cuvil.exp(%n) : ({T}) -> {T}
    %y = cuvil.relayout(%e) {{layout = "contiguous"}} : ({T}) -> tensor<2x3x7xf32>
    return %y
  }}
}}
"""
    _run(text)


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("kernel", [1, 3])
def test_nhwc_conv_gemm_with_residual_epilogue_split_over_threads(threads, kernel):
    pad = kernel // 2
    X, Y = "tensor<2x16x30x30xf32>", "tensor<2x64x30x30xf32>"
    W = f"tensor<64x16x{kernel}x{kernel}xf32>"
    text = f"""
module @m {{
  param @w : {W}
  param @b : tensor<64xf32>
  func @forward(%x: {X}, %r: {Y}) -> ({Y}) {{
    %w = cuvil.param() {{name = @w}} : () -> {W}
    %b = cuvil.param() {{name = @b}} : () -> tensor<64xf32>
    %c = cuvil.conv2d(%x, %w, %b) {{padding = [{pad}, {pad}]}} : ({X}, {W}, tensor<64xf32>) -> {Y}
    %s = cuvil.add(%c, %r) : ({Y}, {Y}) -> {Y}
    %y = cuvil.relu(%s) : ({Y}) -> {Y}
    return %y
  }}
}}
"""
    _run(text, "layout-nhwc,fuse-epilogue", threads)
