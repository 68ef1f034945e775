"""Every sample model: after each O3 pass the IR verifies and still computes eager's result
(interpreter); compiled at O3 with fusion the model matches eager; fusion cuts kernels."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import cuvil
from cuvil.frontend import lower
from cuvil.ir import verify
from cuvil.ir.interpreter import interpret
from cuvil.ir.ops import ConstantOp, ParamOp, RelayoutOp, ReshapeOp
from cuvil.passes import PassPipeline, default_pipeline
from cuvil_debug import load_model

MODELS = Path(__file__).resolve().parents[2] / "samples" / "models"
SAMPLES = ["mlp", "small_cnn", "transformer_block", "resnet18"]
# fused kernels at O3 must be fewer than this fraction of the unfused ones
MAX_KERNEL_RATIO = {
    "mlp": 0.7,
    "small_cnn": 0.6,
    "transformer_block": 0.9,
    "resnet18": 0.4,
}


def kernel_count(module) -> int:
    """Ops that become a kernel (params, constants and reshapes do not). The relayouts
    layout-nhwc puts at region boundaries are not counted: this measures fusion (the
    layout tests pin where relayouts go)."""
    skip = (ParamOp, ConstantOp, ReshapeOp, RelayoutOp)
    return sum(not isinstance(op, skip) for op in module.main.ops)


@pytest.fixture(scope="module", params=SAMPLES)
def sample(request):
    loaded = load_model(str(MODELS / f"{request.param}.py"))
    with torch.no_grad():
        want = loaded.model(*loaded.inputs)
    return request.param, loaded, want


def test_ir_verifies_and_matches_eager_after_every_pass(sample):
    name, loaded, want = sample
    module = lower(loaded.model, loaded.inputs)
    before = kernel_count(module)
    seen = []

    def check(pass_, before_text, after, info):
        verify(after)
        got = interpret(after, loaded.inputs)[0]
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
        seen.append(pass_.name)

    PassPipeline(default_pipeline("O3"), check, verify_each=True).run(module)
    assert seen == default_pipeline("O3").split(",")
    assert kernel_count(module) <= MAX_KERNEL_RATIO[name] * before


def test_compiled_at_o3_with_fusion_matches_eager(sample):
    name, loaded, want = sample
    cm = cuvil.compile(
        loaded.model, loaded.inputs, options={"opt_level": "O3", "enable_fusion": True}
    )
    torch.testing.assert_close(cm(*loaded.inputs), want, rtol=1e-4, atol=1e-5)
    assert any(op.name == "cuvil.fused" for op in cm.module.main.ops)
