"""layout-nhwc: samples and random convolutions still compute eager's result channels-last."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cuvil
from cuvil.ir.ops import FusedOp, RelayoutOp
from cuvil.passes import PassPipeline, default_pipeline
from cuvil_debug import load_model

from .conftest import check_pipeline_matches, module_of

MODELS = Path(__file__).resolve().parents[2] / "samples" / "models"
# layout after fusion: the pass converts cuvil.fused ops and their bodies
AFTER_FUSION = (
    "dce,cse,fold-constants,fold-bn,fuse-epilogue,fuse-elementwise,layout-nhwc,dce"
)
RELAYOUTS = {"mlp": 0, "transformer_block": 0, "small_cnn": 2, "resnet18": 2}


def _relayouts(module) -> list[RelayoutOp]:
    return [op for op in module.main.ops if isinstance(op, RelayoutOp)]


@pytest.mark.parametrize("name", list(RELAYOUTS))
def test_sample_compiled_with_layout_after_fusion_matches_eager(name):
    loaded = load_model(str(MODELS / f"{name}.py"))
    with torch.no_grad():
        want = loaded.model(*loaded.inputs)
    cm = cuvil.compile(loaded.model, loaded.inputs, options={"pipeline": AFTER_FUSION})
    torch.testing.assert_close(cm(*loaded.inputs), want, rtol=1e-4, atol=1e-5)
    assert len(_relayouts(cm.module)) == RELAYOUTS[name]


def test_o3_runs_layout_before_epilogue_fusion():
    names = default_pipeline("O3").split(",")
    assert (
        names.index("fold-bn")
        < names.index("layout-nhwc")
        < names.index("fuse-epilogue")
    )


def _conv_text(n, c, o, h, w, k, stride, pad, dil, bias, tail) -> str:
    oh = (h + 2 * pad[0] - dil[0] * (k[0] - 1) - 1) // stride[0] + 1
    ow = (w + 2 * pad[1] - dil[1] * (k[1] - 1) - 1) // stride[1] + 1
    X, Wt, Y = (
        f"tensor<{n}x{c}x{h}x{w}xf32>",
        f"tensor<{o}x{c}x{k[0]}x{k[1]}xf32>",
        f"tensor<{n}x{o}x{oh}x{ow}xf32>",
    )
    b_arg, b_type = (", %b", f", tensor<{o}xf32>") if bias else ("", "")
    attrs = f"stride = {list(stride)}, padding = {list(pad)}, dilation = {list(dil)}"
    lines = [
        f"%w = cuvil.param() {{name = @w}} : () -> {Wt}",
        f"%b = cuvil.param() {{name = @b}} : () -> tensor<{o}xf32>",
        f"%c = cuvil.conv2d(%x, %w{b_arg}) {{{attrs}}} : ({X}, {Wt}{b_type}) -> {Y}",
    ]
    if tail == "relu":
        lines.append(f"%y = cuvil.relu(%c) : ({Y}) -> {Y}")
    elif tail == "residual":
        lines.append(f"%s = cuvil.add(%c, %r) : ({Y}, {Y}) -> {Y}")
        lines.append(f"%y = cuvil.relu(%s) : ({Y}) -> {Y}")
    else:
        lines.append(
            f"%y = cuvil.max_pool2d(%c) {{kernel = [2, 2], stride = [2, 2]}} : ({Y}) -> "
            f"tensor<{n}x{o}x{oh // 2}x{ow // 2}xf32>"
            if oh >= 2 and ow >= 2
            else f"%y = cuvil.neg(%c) : ({Y}) -> {Y}"
        )
    result = lines[-1].rsplit("-> ", 1)[1]
    body = "\n    ".join([*lines, "return %y"])
    return f"""
module @m {{
  param @w : {Wt}
  param @b : tensor<{o}xf32>
  func @forward(%x: {X}, %r: {Y}) -> ({result}) {{
    {body}
  }}
}}
"""


@st.composite
def convs(draw):
    k = draw(st.sampled_from([(1, 1), (3, 3), (3, 1), (2, 3)]))
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    pad = tuple(draw(st.integers(0, kk // 2)) for kk in k)
    dil = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    h = draw(st.integers(dil[0] * (k[0] - 1) + 1, 9))
    w = draw(st.integers(dil[1] * (k[1] - 1) + 1, 9))
    return dict(
        n=draw(st.integers(1, 2)),
        c=draw(st.sampled_from([1, 3, 8, 17])),
        o=draw(st.sampled_from([1, 8, 20, 64])),
        h=h,
        w=w,
        k=k,
        stride=stride,
        pad=pad,
        dil=dil,
        bias=draw(st.booleans()),
        tail=draw(st.sampled_from(["relu", "residual", "pool"])),
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(convs(), st.sampled_from(["layout-nhwc", "layout-nhwc,fuse-epilogue"]))
def test_random_conv_through_layout_pass_and_codegen_matches_eager(conv, pipeline):
    after, _ = check_pipeline_matches(_conv_text(**conv), pipeline)
    assert any(op.result.type.layout == "nhwc" for op in after.main.ops)
    assert len(_relayouts(after)) in (2, 3)  # x, (residual), result


def test_region_is_one_action_and_bisect_can_skip_it():
    text = _conv_text(1, 3, 8, 6, 6, (3, 3), (1, 1), (1, 1), (1, 1), True, "residual")
    module = module_of(text)
    ctx = PassPipeline("layout-nhwc").run(module)
    assert [a.description for a in ctx.actions] == ["convert 3 ops (1 conv2d) to nhwc"]
    skipped = module_of(text)
    from cuvil.passes import PassContext

    PassPipeline("layout-nhwc").run(skipped, PassContext(bisect_limit=0))
    assert not _relayouts(skipped)


def test_fused_body_is_retyped_and_compiles():
    text = _conv_text(2, 8, 64, 7, 7, (3, 3), (1, 1), (1, 1), (1, 1), True, "residual")
    after, cm = check_pipeline_matches(text, "fuse-epilogue,layout-nhwc")
    fused = [op for op in after.main.ops if isinstance(op, FusedOp)]
    assert fused and fused[0].result.type.layout == "nhwc"
    body = after.lookup(fused[0].attrs["body"].name)
    assert all(op.result.type.layout == "nhwc" for op in body.ops)
    assert (
        len(cm.program.kernels) == 4
    )  # relayout x, relayout residual, conv, relayout out
