"""The sample models run in eager mode, deterministically, with the documented shapes."""

from pathlib import Path

import pytest
import torch
from torch import nn

from cuvil_debug import load_model

MODELS = Path(__file__).resolve().parents[2] / "samples" / "models"

OUTPUT_SHAPES = {
    "mlp": (1, 10),
    "small_cnn": (1, 10),
    "resnet18": (1, 1000),
    "transformer_block": (1, 128, 256),
}


def _run(name: str) -> torch.Tensor:
    loaded = load_model(str(MODELS / f"{name}.py"))
    with torch.no_grad():
        return loaded.model(*loaded.inputs)


def test_every_sample_file_has_an_expected_shape():
    assert sorted(p.stem for p in MODELS.glob("*.py")) == sorted(OUTPUT_SHAPES)


@pytest.mark.parametrize("name", sorted(OUTPUT_SHAPES))
def test_sample_runs_eagerly_to_finite_output_of_expected_shape(name):
    out = _run(name)
    assert tuple(out.shape) == OUTPUT_SHAPES[name]
    assert torch.isfinite(out).all()


@pytest.mark.parametrize("name", sorted(OUTPUT_SHAPES))
def test_sample_weights_and_inputs_are_deterministic(name):
    torch.manual_seed(1234)  # the global RNG state must not matter
    first = _run(name)
    torch.manual_seed(4321)
    assert torch.equal(first, _run(name))


def test_resnet18_has_torchvisions_parameter_count():
    model = load_model(str(MODELS / "resnet18.py")).model
    assert sum(p.numel() for p in model.parameters()) == 11_689_512


def test_resnet18_batchnorm_is_not_the_identity():
    model = load_model(str(MODELS / "resnet18.py")).model
    bn = model.bn1
    assert not torch.allclose(bn.running_var, torch.ones_like(bn.running_var))


def test_transformer_block_writes_attention_out_and_drops_dropout_in_eval():
    loaded = load_model(str(MODELS / "transformer_block.py"))
    kinds = {type(m) for m in loaded.model.modules()}
    assert nn.MultiheadAttention not in kinds
    assert nn.Dropout in kinds and not loaded.model.training
    with torch.no_grad():
        assert torch.equal(loaded.model(*loaded.inputs), loaded.model(*loaded.inputs))
