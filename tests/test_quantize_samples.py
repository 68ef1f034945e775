"""Issue 20's accuracy acceptance: every sample model (samples/models/: MLP, small CNN,
ResNet-18, transformer block) compiled with static ``quantize="int8"``, calibrated on
generated batches and evaluated on others, against float eager: output SQNR >= 30 dB
(the issue's bar for ResNet-18, met by all four) and the top-1 agreement of the last
dimension's argmax per row. bf16 (the transformer block's attention products too) must
stay above 40 dB. Slow tier: ResNet-18's int8 build and calibration take a while.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch

import cuvil

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ["mlp", "small_cnn", "resnet18", "transformer_block"]


def _sample(name: str):
    spec = importlib.util.spec_from_file_location(
        f"q_{name}", ROOT / "samples" / "models" / f"{name}.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    torch.manual_seed(0)
    return mod.Model().eval(), tuple(mod.example_inputs())


def _batches(inputs, n: int, seed: int) -> list:
    """Generated batches like the example inputs (their mean and std per input)."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        batch = tuple(
            torch.randn(x.shape, generator=g) * x.std() + x.mean() for x in inputs
        )
        out.append(batch[0] if len(batch) == 1 else batch)
    return out


def _score(model, compiled, evals) -> tuple[float, float]:
    """(output SQNR in dB, top-1 agreement) over the evaluation batches."""
    refs, gots = [], []
    with torch.no_grad():
        for batch in evals:
            args = batch if isinstance(batch, tuple) else (batch,)
            refs.append(model(*args).reshape(-1, model(*args).shape[-1]))
            gots.append(compiled(*args).reshape(refs[-1].shape))
    ref, got = torch.cat(refs), torch.cat(gots)
    sqnr = 10 * torch.log10(ref.pow(2).sum() / (ref - got).pow(2).sum())
    agree = (ref.argmax(-1) == got.argmax(-1)).float().mean()
    return float(sqnr), float(agree)


@pytest.mark.slow
@pytest.mark.parametrize("name", SAMPLES)
def test_each_sample_quantized_to_int8_keeps_30_db(name):
    model, inputs = _sample(name)
    assert all(x.is_floating_point() for x in inputs)
    calib, evals = _batches(inputs, 4, 1), _batches(inputs, 2, 2)
    compiled = cuvil.compile(
        model, list(inputs), quantize="int8", calibration_data=calib
    )
    layers = compiled.quantization.layers
    int8 = [ly.name for ly in layers if ly.status == "int8"]
    assert int8, [(ly.name, ly.reason) for ly in layers]
    if name == "resnet18":
        assert len(int8) == len(layers)  # every conv and the fc
    sqnr, agree = _score(model, compiled, evals)
    print(f"{name}: int8 SQNR {sqnr:.1f} dB, top-1 agreement {agree:.1%}")
    assert sqnr >= 30, (name, sqnr)
    assert agree >= 0.9, (name, agree)


@pytest.mark.slow
def test_the_transformer_block_in_bf16_keeps_40_db():
    model, inputs = _sample("transformer_block")
    compiled = cuvil.compile(model, list(inputs), quantize="bf16")
    assert "cuvil.matmul_bf16" in [k.op_name for k in compiled.program.kernels]
    sqnr, agree = _score(model, compiled, _batches(inputs, 2, 3))
    assert sqnr >= 40 and agree >= 0.95, (sqnr, agree)
