"""Dynamic shapes: one compile, a specialization per input shape (docs/DYNAMIC.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from torch.export import Dim

import cuvil

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "samples" / "models"))
sys.path.insert(0, str(ROOT / "tests" / "zoo"))

import mlp  # noqa: E402

BATCHES = (1, 3, 8, 17)


def close(got, want):
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)


@pytest.fixture(scope="module")
def model():
    return mlp.Model().eval()


@pytest.fixture(scope="module")
def batch_cm(model):
    (x,) = mlp.example_inputs()
    return cuvil.compile(model, [x], options={"dynamic": True})


def test_dynamic_batch_matches_eager(model, batch_cm):
    for b in BATCHES + (3,):
        x = torch.randn(b, 784)
        with torch.no_grad():
            close(batch_cm(x), model(x))
    info = batch_cm.cache_info()
    assert {(b, 784) for b in BATCHES} <= {s[0] for s in info.shapes}
    assert info.compiles == len(info.shapes) and info.hits >= 1
    assert "specialization(s)" in batch_cm.info and "x[0]=" in repr(batch_cm)


def test_static_dim_change_is_a_clear_error(batch_cm):
    with pytest.raises(cuvil.CuvilError, match=r"input 0 \(x\) dim 1 is 785.*static"):
        batch_cm(torch.randn(2, 785))


def test_out_of_range_names_the_dim_and_how_to_widen(model):
    (x,) = mlp.example_inputs()
    spec = {"x": {0: Dim("batch", min=1, max=8)}}
    cm = cuvil.compile(model, [x], options={"dynamic_shapes": spec})
    close(cm(torch.ones(8, 784)), model(torch.ones(8, 784)))
    with pytest.raises(cuvil.CuvilError, match=r"dim 0 is 9.*batch in \[1, 8\]") as e:
        cm(torch.randn(9, 784))
    assert "max=9" in e.value.hint


def test_simple_spelling_by_index(model):
    (x,) = mlp.example_inputs()
    cm = cuvil.compile(model, [x], options={"dynamic_shapes": {0: {0: "batch"}}})
    close(cm(torch.ones(3, 784)), model(torch.ones(3, 784)))
    assert cm.cache_info().compiles == 2


def test_bad_spec_is_a_cuvil_error(model):
    (x,) = mlp.example_inputs()
    with pytest.raises(cuvil.CuvilError, match="not an input"):
        cuvil.compile(model, [x], options={"dynamic_shapes": {"y": {0: "b"}}})


class _TwoImages(torch.nn.Module):
    def forward(self, images):  # a list of images, as detection models take them
        return images[0] + images[1]


def test_dynamic_dims_of_a_list_input_are_a_cuvil_error():
    images = [torch.randn(3, 8, 8), torch.randn(3, 8, 8)]
    spec = ([{1: "h"}, {1: "h"}],)
    with pytest.raises(cuvil.CuvilError, match="input 'images'.* list, not a tensor"):
        cuvil.compile(_TwoImages(), [images], options={"dynamic_shapes": spec})


def test_transformer_block_dynamic_sequence_length():
    import transformer_block

    model = transformer_block.Model().eval()
    (x,) = transformer_block.example_inputs()
    spec = {"x": {1: Dim("seq", min=1, max=256)}}
    cm = cuvil.compile(model, [x[:, :16]], options={"dynamic_shapes": spec})
    for n in (1, 5, 37):
        with torch.no_grad():
            close(cm(x[:, :n]), model(x[:, :n]))
    assert cm.cache_info().compiles == 4, cm.info


def test_gpt2_dynamic_sequence_length():
    from models import case, find, shim_torchvision_ops

    shim_torchvision_ops()
    try:
        model, xs = case(find("gpt2"))
    except ModuleNotFoundError as e:  # transformers cannot build it in this environment
        pytest.skip(f"the zoo's gpt2 does not build here: {e}")
    # transformers' mask code does not trace under torch.fx (torch.finfo on a Proxy): auto
    # captures it with torch.export
    opts = {"dynamic_shapes": {0: {1: "seq"}}, "frontend": "auto"}
    cm = cuvil.compile(model, xs, options=opts)
    for n in (3, 7):
        ids = xs[0][:, :1].repeat(1, n)
        with torch.no_grad():
            close(cm(ids), model(ids))
    assert cm.cache_info().compiles >= 2, cm.info


def test_torch_compile_dynamic_batches(model):
    compiled = torch.compile(model, backend="cuvil", dynamic=True)
    with torch.no_grad():
        for b in BATCHES:
            x = torch.randn(b, 784)
            close(compiled(x), model(x))


class Branchy(torch.nn.Module):
    """Graph breaks: a data-dependent Python branch on .item(), and a print."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.a, self.b = torch.nn.Linear(8, 8), torch.nn.Linear(8, 4)

    def forward(self, x):
        y = self.a(x).relu()
        if y.sum().item() > 0:
            y = y * 2
        else:
            y = y - 1
        print("cuvil test graph break", tuple(y.shape))
        return self.b(y)


@pytest.mark.parametrize("dynamic", [False, True])
def test_torch_compile_graph_breaks(dynamic):
    model = Branchy().eval()
    compiled = torch.compile(model, backend="cuvil", dynamic=dynamic)
    with torch.no_grad():
        for b in (1, 3, 8, 17):
            for x in (torch.randn(b, 8), -100 * torch.rand(b, 8)):
                close(compiled(x), model(x))


def test_log_line_per_new_specialization(model, monkeypatch, capsys):
    monkeypatch.setenv("CUVIL_LOG_DYNAMIC", "1")
    (x,) = mlp.example_inputs()
    cm = cuvil.compile(model, [x], options={"dynamic_shapes": ({0: "batch"},)})
    cm(torch.ones(2, 784))
    cm(torch.ones(2, 784))
    lines = [
        ln for ln in capsys.readouterr().err.splitlines() if "specialization" in ln
    ]
    assert len(lines) == 2 and "(2x784)" in lines[1]
    assert cm.cache_info()[:3] == (1, 1, 2)


def test_dynamic_keys_belong_to_cuvil_compile():
    with pytest.raises(cuvil.CuvilError, match="taken by cuvil.compile"):
        cuvil.CompileOptions.parse({"dynamic": True})
    with pytest.raises(cuvil.CuvilError, match="dynamic_shapes"):
        cuvil.CompileOptions.parse({"dynamc": True})
