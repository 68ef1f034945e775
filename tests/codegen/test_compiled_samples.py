"""Every bundled sample model, compiled at O0 and O3, matches eager PyTorch (rtol 1e-4,
atol 1e-5), through cuvil.compile and through torch.compile(backend="cuvil")."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch

import cuvil

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "models"


def load(name: str):
    spec = importlib.util.spec_from_file_location(
        f"sample_{name}", SAMPLES / f"{name}.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.Model().eval(), mod.example_inputs()


@pytest.mark.parametrize("opt", ["O0", "O3"])
@pytest.mark.parametrize("name", ["mlp", "small_cnn", "transformer_block", "resnet18"])
def test_compiled_sample_matches_eager(name, opt):
    model, inputs = load(name)
    compiled = cuvil.compile(model, list(inputs), options={"opt_level": opt})
    with torch.no_grad():
        want = model(*inputs)
    torch.testing.assert_close(compiled(*inputs), want, rtol=1e-4, atol=1e-5)


def test_compiled_sample_runs_batch_8_and_via_export():
    model, (x,) = load("mlp")
    xb = x.repeat(8, 1)
    compiled = cuvil.compile(model, [xb], options={"frontend": "export"})
    torch.testing.assert_close(compiled(xb), model(xb), rtol=1e-4, atol=1e-5)


def test_torch_compile_backend_runs_a_sample():
    model, inputs = load("small_cnn")
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="cuvil")
    with torch.no_grad():
        torch.testing.assert_close(
            compiled(*inputs), model(*inputs), rtol=1e-4, atol=1e-5
        )


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"target": "gpu"}, "unknown target 'gpu'"),
        ({"options": {"opt": 3}}, "unknown option 'opt'"),
        ({"options": {"opt_level": "O7"}}, "opt_level='O7'"),
        ({"options": {"debug": "yes"}}, "debug='yes' must be True or False"),
    ],
)
def test_wrong_target_or_options_are_clear_errors(bad, message):
    model, inputs = load("mlp")
    with pytest.raises(cuvil.CuvilError, match=message):
        cuvil.compile(model, list(inputs), **bad)


def test_wrong_input_shape_or_dtype_at_call_time_is_a_clear_error():
    model, (x,) = load("mlp")
    compiled = cuvil.compile(model, [x])
    with pytest.raises(cuvil.CuvilRuntimeError, match=r"expected tensor<1x784xf32>"):
        compiled(torch.randn(2, 784))
    with pytest.raises(cuvil.CuvilRuntimeError, match="float64"):
        compiled(x.double())
    with pytest.raises(cuvil.CuvilRuntimeError, match="takes 1 inputs, got 2"):
        compiled(x, x)
