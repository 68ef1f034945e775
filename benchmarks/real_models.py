"""The models bench_models.py measures: the samples and full-size real architectures.

Real architectures are built from their library definitions with random weights (nothing
is downloaded): transformers 5.x configs at their default (base) sizes, eager attention,
and torchvision classifiers with batch-norm statistics of a trained-looking model (at
torchvision's init, deep nets output ~1e-10 and every comparison passes vacuously).
Each case is (model, positional inputs); a model returns one tensor.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]

SAMPLES = {  # name: (sample file, batch)
    "mlp_b1": ("mlp", 1),
    "mlp_b8": ("mlp", 8),
    "small_cnn_b1": ("small_cnn", 1),
    "resnet18_b1": ("resnet18", 1),
    "transformer_b1": ("transformer_block", 1),
    "transformer_b8": ("transformer_block", 8),
}
REAL = {  # name: (library, class or builder, batch, sequence or image side)
    "bert_base_s128": ("transformers", "Bert", 1, 128),
    "gpt2_small_s128": ("transformers", "GPT2", 1, 128),
    "vit_b16_224": ("transformers", "ViT", 1, 224),
    "resnet50_b1": ("torchvision", "resnet50", 1, 224),
    "mobilenet_v2_b1": ("torchvision", "mobilenet_v2", 1, 224),
    "efficientnet_b0_b1": ("torchvision", "efficientnet_b0", 1, 224),
}
CASES = [*SAMPLES, *REAL]


class FirstOutput(torch.nn.Module):
    """A transformers model behind a positional forward that returns its first tensor."""

    def __init__(self, model: torch.nn.Module, name: str) -> None:
        super().__init__()
        self.model, self.name = model, name

    def forward(self, x):
        out = self.model(**{self.name: x})
        return out if isinstance(out, torch.Tensor) else out[0]


def sample(name: str, batch: int):
    spec = importlib.util.spec_from_file_location(
        f"bench_{name}", ROOT / "samples/models" / f"{name}.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    inputs = tuple(
        x.repeat(batch, *([1] * (x.dim() - 1))) for x in mod.example_inputs()
    )
    return mod.Model().eval(), inputs


def _shim_torchvision() -> None:
    """torchvision's compiled ops may not load beside this torch; the models need none
    (tests/zoo/models.py defines the op schemas the same way)."""
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "zoo"))
    try:
        from models import shim_torchvision_ops  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    shim_torchvision_ops()


def _trained_norms(model: torch.nn.Module) -> None:
    g = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                n = m.num_features
                m.running_mean.copy_(0.1 * torch.randn(n, generator=g))
                m.running_var.copy_(0.5 + torch.rand(n, generator=g))
                m.weight.copy_(1 + 0.2 * torch.randn(n, generator=g))
                m.bias.copy_(0.1 * torch.randn(n, generator=g))


def real(name: str):
    library, what, batch, size = REAL[name]
    torch.manual_seed(0)
    _shim_torchvision()
    g = torch.Generator().manual_seed(1)
    if library == "torchvision":
        import torchvision.models

        model = getattr(torchvision.models, what)(weights=None)
        _trained_norms(model)
        return model.eval(), (torch.randn(batch, 3, size, size, generator=g),)
    import transformers

    config = getattr(transformers, f"{what}Config")()
    config._attn_implementation = "eager"
    model = getattr(transformers, f"{what}Model")(config).eval()
    if what == "ViT":
        x = torch.randn(batch, 3, size, size, generator=g)
        return FirstOutput(model, "pixel_values").eval(), (x,)
    ids = torch.randint(1, config.vocab_size, (batch, size), generator=g)
    return FirstOutput(model, "input_ids").eval(), (ids,)


def build(name: str):
    """(model in eval mode, positional inputs) of one case."""
    return sample(*SAMPLES[name]) if name in SAMPLES else real(name)
