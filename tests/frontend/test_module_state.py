"""The exports Cuvil runs leave the user's model as they found it (frontend/module_state).

torch.export runs forward() on fake tensors, so a model that keeps a tensor on itself
(positional-encodings' `self.cached_penc = ...`) held a FakeTensor after
cuvil.compile: its next eager call returned the fake, and with dynamic_shapes the
static export after torch.export's proof read the cached fake back and failed
("Could not guard on data-dependent expression", zoo16's pe_p1d / pe_p2d). torch.fx's
trace left a Proxy there the same way."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.export import Dim

import cuvil


class Cached(nn.Module):
    """Keeps the encoding it computed for the last input shape in a buffer that starts
    as None (positional-encodings' `register_buffer("cached_penc", None, ...)`)."""

    def __init__(self) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.linspace(0.5, 1.5, 6), requires_grad=False)
        self.register_buffer("cached", None, persistent=False)

    def forward(self, x):
        if self.cached is not None and self.cached.shape == x.shape:
            return self.cached
        self.cached = None
        pos = torch.arange(x.shape[1], dtype=x.dtype)[None, :, None]
        self.cached = (pos * self.scale).sin().repeat(x.shape[0], 1, 1)
        return self.cached


class Wrapper(nn.Module):
    """The cache on a child, as positional-encodings' Permute wrappers hold it."""

    def __init__(self) -> None:
        super().__init__()
        self.inner = Cached()

    def forward(self, x):
        return self.inner(x) + x


def _real(value) -> bool:
    return value is None or type(value) is torch.Tensor


@pytest.mark.parametrize(
    "options",
    [{"frontend": "export"}, {"dynamic_shapes": ({0: Dim("batch", max=64)},)}],
    ids=["export", "dynamic_shapes"],
)
def test_compile_leaves_the_models_cached_tensor_real(options):
    model = Wrapper().eval()
    x = torch.randn(2, 5, 6)
    compiled = cuvil.compile(model, [x], options=options)
    assert _real(model.inner.cached), type(model.inner.cached)
    want = Wrapper().eval()(x)
    torch.testing.assert_close(model(x), want, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(compiled(x), want, rtol=1e-4, atol=1e-5)
    if "dynamic_shapes" in options:  # another batch, compiled after the proof
        wide = torch.randn(3, 5, 6)
        torch.testing.assert_close(
            compiled(wide), Wrapper().eval()(wide), rtol=1e-4, atol=1e-5
        )


class DictCached(nn.Module):
    """Fills a dict attribute in forward() (timm's EfficientViT attention_bias_cache)."""

    def __init__(self) -> None:
        super().__init__()
        self.bias = nn.Parameter(torch.randn(5, 6), requires_grad=False)
        self.cache: dict[str, torch.Tensor] = {}

    def forward(self, x):
        key = str(x.device)
        if key not in self.cache:
            self.cache[key] = self.bias.tanh()
        return x + self.cache[key]


@pytest.mark.parametrize("frontend", ["export", "fx"])
def test_compile_leaves_a_cache_dict_as_it_was(frontend):
    model = DictCached().eval()
    cache = model.cache
    x = torch.randn(2, 5, 6)
    compiled = cuvil.compile(model, [x], options={"frontend": frontend})
    # an eager run Cuvil makes (fx's shape propagation) may fill it, with real values
    assert model.cache is cache and set(cache) <= {"cpu"}, cache
    assert all(type(v) is torch.Tensor for v in cache.values()), cache
    torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-5)


class Frozen(dict):
    """A config dict that refuses updates (diffusers' FrozenDict)."""

    def update(self, *args, **kwargs):
        raise TypeError("frozen")

    def clear(self):
        raise TypeError("frozen")


class Configured(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.config = Frozen(scale=2.0)
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        return self.proj(x) * self.config["scale"]


def test_a_frozen_config_dict_is_left_alone():
    model = Configured().eval()
    x = torch.randn(2, 4)
    compiled = cuvil.compile(model, [x], options={"frontend": "export"})
    assert model.config == {"scale": 2.0}
    torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-5)


class _VmapComplex(torch.nn.Module):
    """s5-pytorch's shape: forward() under torch.vmap, an op Cuvil refuses inside."""

    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 4))

    def step(self, s):
        z = torch.complex(s @ self.w, s)
        return (z * z).real

    def forward(self, x):
        return torch.vmap(self.step)(x)


def test_a_failed_compile_inside_vmap_leaves_the_process_outside_it():
    """The exported graph's `_vmap_increment_nesting` runs for real while Cuvil lowers
    it; the refusal between it and its decrement used to leave the layer on
    functorch's stack: the user's next `torch.randn` raised "vmap: called random
    operation while in randomness error mode"."""
    depth = torch._C._functorch.get_dynamic_layer_stack_depth()
    with pytest.raises(cuvil.CuvilError, match="complex"):
        cuvil.compile(_VmapComplex(), [torch.randn(3, 4)])
    assert torch._C._functorch.get_dynamic_layer_stack_depth() == depth
    torch.randn(2)  # outside vmap: no randomness error
