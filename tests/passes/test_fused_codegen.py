"""cuvil.fused runs as one kernel and computes what its body means (interpreter)."""

from __future__ import annotations

import pytest
import torch

from cuvil.ir.interpreter import Interpreter
from cuvil.ir.ops import FusedOp

from .conftest import check_pipeline_matches, inputs_for, module_of

ELEMENTWISE = """
module @m {
  func @forward(%x: tensor<2x3x4xf32>, %b: tensor<4xf32>, %s: tensor<3x1xf32>) -> (tensor<2x3x4xf32>) {
    %a = cuvil.add(%x, %b) : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
    %m = cuvil.mul(%a, %s) : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
    %z = cuvil.constant() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %c = cuvil.gt(%m, %z) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xi1>
    %e = cuvil.gelu(%m) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %t = cuvil.tanh(%a) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %w = cuvil.where(%c, %e, %t) : (tensor<2x3x4xi1>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %i = cuvil.cast(%c) {dtype = f32} : (tensor<2x3x4xi1>) -> tensor<2x3x4xf32>
    %y = cuvil.sub(%w, %i) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    return %y
  }
}
"""


def _fused(module) -> list[FusedOp]:
    return [op for op in module.main.ops if isinstance(op, FusedOp)]


def test_elementwise_tree_with_broadcast_compare_where_cast_is_one_kernel():
    after, cm = check_pipeline_matches(ELEMENTWISE, "fuse-elementwise")
    assert len(_fused(after)) == 1
    assert len(cm.program.kernels) == 1


def _gemm_module(contraction: str, tail: str, out: str, extra_args: str = "") -> str:
    return f"""
module @m {{
  param @w : tensor<8x3x3x3xf32>
  param @b : tensor<8xf32>
  param @fw : tensor<24x16xf32>
  param @fb : tensor<24xf32>
  func @forward(%x: tensor<2x3x10x10xf32>, %y: tensor<5x16xf32>, %r: {out}{extra_args}) -> ({out}) {{
    %w = cuvil.param() {{name = @w}} : () -> tensor<8x3x3x3xf32>
    %b = cuvil.param() {{name = @b}} : () -> tensor<8xf32>
    %fw = cuvil.param() {{name = @fw}} : () -> tensor<24x16xf32>
    %fb = cuvil.param() {{name = @fb}} : () -> tensor<24xf32>
    %k = cuvil.constant() {{value = dense<0.25> : tensor<f32>}} : () -> tensor<f32>
    {contraction}
    {tail}
  }}
}}
"""


CONV = (
    "%c = cuvil.conv2d(%x, %w, %b) {padding = [1, 1]} : (tensor<2x3x10x10xf32>, "
    "tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<2x8x10x10xf32>",
    "tensor<2x8x10x10xf32>",
)
LINEAR = (
    "%c = cuvil.linear(%y, %fw, %fb) : (tensor<5x16xf32>, tensor<24x16xf32>, "
    "tensor<24xf32>) -> tensor<5x24xf32>",
    "tensor<5x24xf32>",
)


def _tail(kind: str, t: str) -> str:
    if kind == "pre":  # relu(c + r)
        return (
            f"%s = cuvil.add(%c, %r) : ({t}, {t}) -> {t}\n"
            f"    %o = cuvil.relu(%s) : ({t}) -> {t}\n    return %o"
        )
    if kind == "post":  # relu(c) * k + r
        return (
            f"%u = cuvil.relu(%c) : ({t}) -> {t}\n"
            f"    %v = cuvil.mul(%u, %k) : ({t}, tensor<f32>) -> {t}\n"
            f"    %o = cuvil.add(%r, %v) : ({t}, {t}) -> {t}\n    return %o"
        )
    return (
        f"%u = cuvil.clamp(%c) {{min = -0.5, max = 0.5}} : ({t}) -> {t}\n"
        f"    %o = cuvil.sub(%u, %k) : ({t}, tensor<f32>) -> {t}\n    return %o"
    )


@pytest.mark.parametrize("contraction", [CONV, LINEAR], ids=["conv", "linear"])
@pytest.mark.parametrize("kind", ["pre", "post", "none"])
def test_gemm_epilogue_with_residual_matches_interpreter(contraction, kind):
    op, t = contraction
    after, cm = check_pipeline_matches(
        _gemm_module(op, _tail(kind, t), t), "fuse-epilogue,dce"
    )
    assert len(_fused(after)) == 1
    assert len(cm.program.kernels) == 1


def test_batched_matmul_scaled_by_constant_and_residual_is_one_kernel():
    t = "tensor<2x4x6x5xf32>"
    text = f"""
module @m {{
  func @forward(%a: tensor<2x4x6x7xf32>, %b: tensor<2x4x7x5xf32>, %r: {t}) -> ({t}) {{
    %k = cuvil.constant() {{value = dense<0.125> : tensor<f32>}} : () -> tensor<f32>
    %c = cuvil.matmul(%a, %b) : (tensor<2x4x6x7xf32>, tensor<2x4x7x5xf32>) -> {t}
    %d = cuvil.div(%c, %k) : ({t}, tensor<f32>) -> {t}
    %o = cuvil.add(%d, %r) : ({t}, {t}) -> {t}
    return %o
  }}
}}
"""
    after, cm = check_pipeline_matches(text, "fuse-epilogue")
    assert len(cm.program.kernels) == 1


def test_listeners_see_a_fused_op_once_or_its_members_when_expanded():
    module = module_of(ELEMENTWISE)
    from cuvil.passes import PassPipeline

    PassPipeline("fuse-elementwise").run(module)
    xs = inputs_for(module)
    seen, expanded = [], []
    Interpreter(module, [lambda op, outs: seen.append(op.name)]).run(*xs)
    Interpreter(
        module, [lambda op, outs: expanded.append(op.name)], expand_fused=True
    ).run(*xs)
    assert seen.count("cuvil.fused") == 1 and "cuvil.gelu" not in seen
    assert "cuvil.gelu" in expanded and "cuvil.fused" in expanded
    assert torch.isfinite(Interpreter(module).run(*xs)[0]).all()


def test_fused_module_prints_parses_and_verifies_identically():
    from cuvil.ir import parse_module, print_module, verify
    from cuvil.passes import PassPipeline

    module = module_of(ELEMENTWISE)
    PassPipeline("fuse-elementwise").run(module)
    text = print_module(module)
    again = verify(parse_module(text))
    assert print_module(again) == text


def test_fused_op_naming_a_missing_or_mistyped_body_does_not_verify():
    from cuvil.errors import VerifyError
    from cuvil.ir import parse_module, print_module, verify
    from cuvil.passes import PassPipeline

    module = module_of(ELEMENTWISE)
    PassPipeline("fuse-elementwise").run(module)
    text = print_module(module)
    with pytest.raises(VerifyError, match="body @fused_9 is not a function"):
        verify(parse_module(text.replace("body = @fused_0", "body = @fused_9")))
    body = module.lookup("fused_0")
    body.args[0].type = body.args[0].type.with_shape((2, 3, 5))
    with pytest.raises(VerifyError, match="operand types differ"):
        verify(module)
