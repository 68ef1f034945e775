"""cuvil.save(..., split_debug=True): a stripped model.so that cuvil.load accepts, its
DWARF in model.debug, both named with their SHA-256 in model.json."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

import cuvil
from cuvil.runtime.debugkey import NOTE_SECTION, sha256
from cuvil.runtime.elfinfo import open_elf
from cuvil.runtime.manifest import read_manifest
from cuvil.runtime.symbols import STORE_ENV, SymbolStore
from cuvil_debug import load_model

ROOT = Path(__file__).resolve().parents[2]
MLP = ROOT / "samples" / "models" / "mlp.py"


@pytest.fixture(scope="module")
def mlp():
    loaded = load_model(str(MLP))
    model = loaded.model.eval()
    options = {"opt_level": "O2", "debug": True}
    return model, loaded.inputs, cuvil.compile(model, loaded.inputs, options=options)


@pytest.fixture(scope="module")
def split(mlp, tmp_path_factory) -> Path:
    return cuvil.save(
        mlp[2], tmp_path_factory.mktemp("split") / "mlp", split_debug=True
    )


def _sections(path: Path) -> set[str]:
    with open_elf(path) as elf:
        return {s.name for s in elf.sections}


def test_the_library_keeps_code_notes_and_manifest_and_loses_its_dwarf(split):
    meta = json.loads((split / "model.json").read_text())
    key = meta["debug_key"]
    with open_elf(split / "model.so") as elf:
        assert not elf.has_dwarf() and elf.has_code()
        assert elf.build_id == elf.cuvil_key == key
        assert elf.symbols("cuvil_manifest", "cuvil_main").keys() == {
            "cuvil_manifest",
            "cuvil_main",
        }
    names = _sections(split / "model.so")
    assert {".dynsym", ".gnu_debuglink", NOTE_SECTION, ".cuvil.manifest"} <= names
    assert not any(n.startswith(".debug_") for n in names)
    assert read_manifest(split / "model.so")["kernels"]
    with open_elf(split / "model.debug") as elf:
        assert elf.has_dwarf() and not elf.has_code() and elf.build_id == key


def test_metadata_names_both_files_with_their_digests(split):
    meta = json.loads((split / "model.json").read_text())
    assert meta["format"] == "cuvil-aot-2"
    for entry in (meta["library"], meta["debug"]):
        assert entry["sha256"] == sha256((split / entry["file"]).read_bytes())
    assert meta["debug"]["file"] == "model.debug"


def test_a_split_bundle_loads_with_and_without_its_debug_file(mlp, split, tmp_path):
    model, inputs, compiled = mlp
    shipped = tmp_path / "shipped"
    shutil.copytree(split, shipped, ignore=shutil.ignore_patterns("model.debug"))
    for bundle in (split, shipped):
        loaded = cuvil.load(bundle)
        torch.testing.assert_close(loaded(*inputs), compiled(*inputs), rtol=0, atol=0)
    whole = cuvil.save(compiled, tmp_path / "whole") / "model.so"
    assert (split / "model.so").stat().st_size < whole.stat().st_size


def test_a_hand_stripped_library_is_refused_with_a_hint_to_split(mlp, tmp_path):
    bundle = cuvil.save(mlp[2], tmp_path / "full")
    strip = shutil.which("strip")
    if strip is None:
        pytest.skip("strip (binutils) is not installed")
    subprocess.run([strip, "--strip-debug", bundle / "model.so"], check=True)
    with pytest.raises(cuvil.CuvilError, match="does not match its metadata") as err:
        cuvil.load(bundle)
    assert "split_debug=True" in err.value.hint
    assert "cuvil-debug symbols add" in err.value.hint


def test_overwriting_a_split_bundle_with_a_whole_one_drops_model_debug(mlp, tmp_path):
    bundle = cuvil.save(mlp[2], tmp_path / "b", split_debug=True)
    cuvil.save(mlp[2], bundle, overwrite=True)
    assert not (bundle / "model.debug").exists()
    assert "debug" not in json.loads((bundle / "model.json").read_text())
    cuvil.load(bundle)


def test_save_files_the_debug_info_in_the_compile_s_store(mlp, tmp_path, monkeypatch):
    monkeypatch.setenv(STORE_ENV, str(tmp_path / "store"))
    bundle = cuvil.save(mlp[2], tmp_path / "b", split_debug=True)
    key = json.loads((bundle / "model.json").read_text())["debug_key"]
    store = SymbolStore(tmp_path / "store")
    assert store.find(key).read_bytes() == (bundle / "model.debug").read_bytes()
    assert store.find_executable(key).read_bytes() == (bundle / "model.so").read_bytes()
