"""cuvil_debug.debugger without a debugger: its ELF reader, build lookup and tensor views
checked against pyelftools, a real saved library and torch."""

from __future__ import annotations

import struct

import pytest
import torch
from elftools.elf.elffile import ELFFile

import cuvil
from cuvil.runtime.manifest import read_manifest
from cuvil_debug import load_model
from cuvil_debug.debugger.builds import BuildCache, resolve
from cuvil_debug.debugger.elf import open_elf
from cuvil_debug.debugger.tensors import Stats, TensorView, parse_slice

from ..debuggers.conftest import ROOT

SMALL = ROOT / "samples" / "models" / "small_cnn.py"


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    loaded = load_model(str(SMALL))
    options = {"opt_level": "O3", "debug": True}  # release inlines its kernels
    cm = cuvil.compile(loaded.model, loaded.inputs, options=options)
    path = tmp_path_factory.mktemp("aot") / "small"
    cuvil.save(cm, path)
    return path, cuvil.load(path)


def test_elf_reader_agrees_with_pyelftools(bundle):
    path, loaded = bundle
    so = str(path / "model.so")
    with open(so, "rb") as f, open_elf(so) as ours:
        ref = ELFFile(f)
        assert [s.name for s in ours.sections] == [s.name for s in ref.iter_sections()]
        assert [s.addr for s in ours.sections] == [
            s["sh_addr"] for s in ref.iter_sections()
        ]
        symtab = ref.get_section_by_name(".symtab")
        expected = {
            s.name: s["st_value"]
            for s in symtab.iter_symbols()
            if s.name and s["st_shndx"] != "SHN_UNDEF"
        }
        symbols = {s.name: s.value for s in ours.symbol_table()}
        key = ours.key
    assert symbols == expected
    assert key == loaded.debug_key


def test_a_library_build_has_the_manifest_and_every_kernel(bundle):
    path, _ = bundle
    build = BuildCache().library(str(path / "model.so"), 0x1000)
    assert build is not None and build.manifest == read_manifest(path / "model.so")
    assert set(build.kernels) == {k["symbol"] for k in build.manifest["kernels"]}
    with open_elf(path / "model.so") as elf:
        sym = next(s for s in elf.symbol_table() if s.name == "cuvil_main")
    assert build.function("cuvil_main")[0] == 0x1000 + sym.value


def test_resolve_says_where_fused_and_folded_nodes_went(bundle):
    path, _ = bundle
    build = BuildCache().library(str(path / "model.so"), 0)
    nodes = build.manifest["nodes"]
    fused = next(n for n, e in nodes.items() if e["status"] == "fused")
    folded = next(n for n, e in nodes.items() if e["status"] == "folded")
    for node, word in ((fused, "is fused into"), (folded, "was folded into")):
        res = resolve([build], node)
        assert [k.symbol for _, k in res.targets] == [nodes[node]["kernel"]]
        assert word in res.note
    assert resolve([build], "x").targets == [] and "input" in resolve([build], "x").note
    line = resolve([build], "small_cnn.py:16")
    assert {k.symbol for _, k in line.targets} >= {nodes[fused]["kernel"]}
    relus = resolve([build], "relu").targets
    assert relus and all("cuvil.relu" in str(k.info) for _, k in relus)
    unknown = resolve([build], "block1_rleu")
    assert not unknown.targets and "did you mean block1_relu" in unknown.note


@pytest.mark.parametrize("layout", ["contiguous", "nhwc"])
def test_tensor_view_reads_logical_order(layout):
    t = torch.randn(2, 3, 4, 5)
    memory = t if layout == "contiguous" else t.permute(0, 2, 3, 1).contiguous()
    strides = [60, 20, 5, 1] if layout == "contiguous" else [60, 1, 15, 3]
    view = TensorView((2, 3, 4, 5), "f32", layout, tuple(strides))
    values = view.decode(memory.numpy().tobytes())
    assert values == pytest.approx(t.flatten().tolist())


def test_tensor_view_reads_a_blocked_layout_and_bf16():
    t = torch.randn(1, 20, 3, 2)  # 20 channels in blocks of 16: padded to 32
    blocked = torch.zeros(1, 2, 3, 2, 16)
    padded = torch.zeros(1, 32, 3, 2)
    padded[:, :20] = t
    blocked[:] = padded.reshape(1, 2, 16, 3, 2).permute(0, 1, 3, 4, 2)
    view = TensorView((1, 20, 3, 2), "f32", "nchw16c", None)
    assert view.nbytes == blocked.numel() * 4
    assert view.decode(blocked.numpy().tobytes()) == pytest.approx(t.flatten().tolist())
    b = torch.randn(7).to(torch.bfloat16)
    raw = struct.pack("<7h", *b.view(torch.int16).tolist())
    values = TensorView((7,), "bf16").decode(raw)
    assert values == pytest.approx(b.float().tolist())


def test_slices_and_statistics():
    t = torch.arange(24.0).reshape(2, 3, 4)
    view = TensorView((2, 3, 4), "f32", "contiguous", (12, 4, 1))
    idx = parse_slice("1,:,1:3", view.shape)
    assert view.decode(t.numpy().tobytes(), idx) == t[1, :, 1:3].flatten().tolist()
    assert parse_slice("-1", view.shape)[0] == (1, 0, 0)
    with pytest.raises(ValueError, match="bad index '5' for dim 1"):
        parse_slice("0,5", view.shape)
    x = [1.0, float("nan"), float("inf"), -2.0]
    s = Stats.of(x)
    assert (s.n, s.min, s.max, s.nan, s.inf) == (4, -2.0, 1.0, 1, 1)
    assert s.mean == pytest.approx(-0.5)
