"""The symbol store (cuvil.runtime.symbols) and what JIT builds put in it: their debug
key, the registration policy, keep_symbols and $CUVIL_SYMBOL_STORE."""

from __future__ import annotations

import json

import pytest
import torch
from torch import nn

import cuvil
from cuvil.codegen.generator import generate
from cuvil.codegen.target import target_machine
from cuvil.frontend import lower
from cuvil.options import CompileOptions
from cuvil.runtime import jitreg
from cuvil.runtime.compiled import CompiledModule
from cuvil.runtime.debugkey import note_module
from cuvil.runtime.elfinfo import Elf, image_key, open_elf
from cuvil.runtime.jit import JitModule
from cuvil.runtime.symbols import STORE_ENV, SymbolStore, store_for

KEYS = [f"{i:02x}" * 20 for i in (0xA1, 0xB2, 0xC3, 0xD4)]


def _object(key: str | None) -> bytes:
    """A small relocatable object carrying `key` as note and build-id (None: none)."""
    import llvmlite.binding as llvm

    mod = llvm.parse_assembly("define i32 @f() {\n  ret i32 7\n}\n")
    if key is not None:
        mod.link_in(note_module(key, build_id=True))
    return target_machine(0).emit_object(mod)


def _model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).eval()


X = torch.randn(2, 8)


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(STORE_ENV, raising=False)


def _registered_keys() -> list[str]:
    images = jitreg.registered_images()
    assert images is not None, "this llvmlite has no __jit_debug_descriptor symbol"
    return [image_key(i.read()) for i in images]


# ---- the store -------------------------------------------------------------------------
def test_an_entry_is_filed_by_build_id_and_verified_when_read(tmp_path):
    store = SymbolStore(tmp_path / "store")
    entry = store.put(debug=_object(KEYS[0]), source="test")
    path = tmp_path / "store" / ".build-id" / KEYS[0][:2] / f"{KEYS[0][2:]}.debug"
    assert entry.debug == path and store.find(KEYS[0]) == path
    assert (entry.key, entry.kind, entry.valid) == (KEYS[0], "jit", True)
    assert store.find(KEYS[1]) is None
    path.write_bytes(_object(KEYS[1]))  # another build's file under this key
    assert store.find(KEYS[0]) is None
    [broken] = store.entries()
    assert not broken.valid
    assert [e.key for e in store.gc()] == [KEYS[0]]
    assert store.entries() == [] and not path.exists()


def test_put_refuses_a_file_without_build_id_and_keeps_a_valid_entry(tmp_path):
    store = SymbolStore(tmp_path)
    with pytest.raises(cuvil.CuvilRuntimeError, match="has no build-id"):
        store.put(debug=_object(None))
    with pytest.raises(cuvil.CuvilRuntimeError, match="not an ELF file"):
        store.put(debug=b"not elf")
    with pytest.raises(cuvil.CuvilRuntimeError, match="different build-ids"):
        store.put(debug=_object(KEYS[0]), executable=_object(KEYS[1]))
    first = store.put(debug=_object(KEYS[0]))
    mtime = first.debug.stat().st_mtime_ns
    store.put(debug=_object(KEYS[0]))
    assert first.debug.stat().st_mtime_ns == mtime  # not rewritten
    with pytest.raises(cuvil.CuvilRuntimeError, match="is not a debug key"):
        store.find("../../etc")


def _aged(store: SymbolStore, ages_days: list[float], now: float) -> None:
    for key, age in zip(KEYS, ages_days):
        entry = store.put(debug=_object(key))
        meta = entry.debug.with_suffix(".json")
        doc = json.loads(meta.read_text())
        meta.write_text(json.dumps({**doc, "added": now - age * 86400}))


def test_gc_keeps_the_newest_removes_old_ones_and_fits_a_size(tmp_path):
    now = 2_000_000_000.0
    store = SymbolStore(tmp_path)
    _aged(store, [40, 30, 2, 1], now)
    assert [e.key for e in store.entries()] == KEYS  # oldest first
    assert [e.key for e in store.gc(older_than=10 * 86400, now=now)] == KEYS[:2]
    size = store.entries()[0].size
    assert [e.key for e in store.gc(max_bytes=size, now=now)] == KEYS[2:3]
    assert [e.key for e in store.gc(keep=1, now=now)] == []
    assert [e.key for e in store.gc(keep=0, now=now)] == KEYS[3:]
    assert list((tmp_path / ".build-id").iterdir()) == []


def test_gc_never_deletes_anything_outside_the_store(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    mine = outside / f"{KEYS[1][2:]}.debug"
    mine.write_bytes(_object(KEYS[0]))  # broken as an entry of KEYS[1]
    target = outside / "precious.debug"
    target.write_bytes(b"mine")
    store = SymbolStore(tmp_path / "store")
    store.put(debug=_object(KEYS[0]))
    top = tmp_path / "store" / ".build-id"
    (top / KEYS[1][:2]).symlink_to(outside, target_is_directory=True)
    (top / KEYS[0][:2] / f"{KEYS[2][2:]}.debug").symlink_to(target)
    store.gc(keep=0)
    assert mine.read_bytes() == _object(KEYS[0]) and target.read_bytes() == b"mine"
    assert not (top / KEYS[0][:2] / f"{KEYS[2][2:]}.debug").is_symlink()


def test_the_store_of_a_compile(tmp_path, monkeypatch):
    assert store_for(CompileOptions()) is None
    monkeypatch.setenv(STORE_ENV, str(tmp_path / "env"))
    assert store_for(CompileOptions()).root == tmp_path / "env"
    kept = CompileOptions.parse(keep_symbols=tmp_path / "opt")
    assert store_for(kept).root == tmp_path / "opt"


# ---- JIT builds ------------------------------------------------------------------------
def test_jit_debug_key_is_in_the_object_and_ignores_keep_symbols(tmp_path):
    plain = cuvil.compile(_model(), [X], options={"opt_level": "O1"})
    kept = cuvil.compile(
        _model(), [X], options={"opt_level": "O1", "keep_symbols": str(tmp_path)}
    )
    other = cuvil.compile(_model(), [X], options={"opt_level": "O2"})
    assert plain.debug_key == kept.debug_key != other.debug_key
    with open_elf(SymbolStore(tmp_path).find(kept.debug_key)) as elf:
        assert elf.build_id == elf.cuvil_key == kept.debug_key
    bundle = cuvil.save(plain, tmp_path / "bundle")
    assert cuvil.load(bundle).debug_key != plain.debug_key  # PIC code: another build


def test_registration_follows_debug_and_the_store(tmp_path):
    release = cuvil.compile(_model(), [X], options={"opt_level": "O1"})
    debug = cuvil.compile(_model(), [X], options={"opt_level": "O1", "debug": True})
    kept = cuvil.compile(
        _model(), [X], options={"opt_level": "O3", "keep_symbols": str(tmp_path)}
    )
    registered = _registered_keys()
    assert release.debug_key not in registered and not release.jit.registered
    assert debug.debug_key in registered and debug.jit.registered
    assert kept.debug_key in registered and kept.jit.registered
    key = debug.debug_key
    del debug
    assert key not in _registered_keys()  # LLVM unregisters a freed engine's object
    torch.testing.assert_close(release(X), _model()(X), rtol=1e-5, atol=1e-6)


def test_keep_symbols_files_the_dwarf_and_mcjit_loads_the_object_stripped(tmp_path):
    """A release build whose code has DWARF (as release builds with line tables do)."""
    options = CompileOptions.parse(opt_level="O2", keep_symbols=str(tmp_path))
    module = lower(_model(), [X])
    program = generate(module, debug=True)
    jit = JitModule(program, options.opt, debug=False, options=options)
    compiled = CompiledModule(module, program, jit, options)
    with open_elf(SymbolStore(tmp_path).find(compiled.debug_key)) as elf:
        assert elf.has_dwarf()
    [image] = [
        i for i in jitreg.registered_images() if image_key(i.read()) == jit.debug_key
    ]
    loaded = Elf(image.read())
    assert not loaded.has_dwarf() and loaded.section(".symtab") is not None
    torch.testing.assert_close(compiled(X), _model()(X), rtol=1e-5, atol=1e-6)


def test_env_store_and_cache_hits_file_the_object_too(tmp_path, monkeypatch):
    first = cuvil.compile(_model(), [X], options={"opt_level": "O1"})
    monkeypatch.setenv(STORE_ENV, str(tmp_path / "env"))
    again = cuvil.compile(_model(), [X], options={"opt_level": "O1"})
    assert again.jit.cache_hit and again.debug_key == first.debug_key
    assert SymbolStore(tmp_path / "env").find(again.debug_key) is not None
    torch.testing.assert_close(again(X), first(X), rtol=0, atol=0)


def test_an_unwritable_store_is_one_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(cuvil.CuvilRuntimeError, match="cannot write to the symbol"):
        cuvil.compile(_model(), [X], options={"keep_symbols": str(blocker)})
    assert blocker.read_text() == "not a folder"


def test_entries_filed_by_another_tool_are_listed_from_their_files(tmp_path):
    """A .build-id tree without Cuvil's sidecars (or with links, as distributions
    lay out /usr/lib/debug): kind and name come from the file itself."""
    elsewhere = tmp_path / "elsewhere.debug"
    elsewhere.write_bytes(_object(KEYS[0]))
    folder = tmp_path / "store" / ".build-id" / KEYS[0][:2]
    folder.mkdir(parents=True)
    (folder / f"{KEYS[0][2:]}.debug").symlink_to(elsewhere)
    store = SymbolStore(tmp_path / "store")
    [entry] = store.entries()
    assert (entry.key, entry.kind, entry.valid) == (KEYS[0], "jit", True)
    assert store.find(KEYS[0]) is not None and store.gc() == []
