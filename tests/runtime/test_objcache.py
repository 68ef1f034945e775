"""The object cache: a second compile of the same model skips LLVM; bad entries are misses."""

from __future__ import annotations

import torch
from torch import nn

import cuvil


def _compile(x):
    torch.manual_seed(0)
    return cuvil.compile(
        nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)), [x]
    )


def test_second_compile_hits_the_cache_and_computes_the_same(tmp_path, monkeypatch):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    x = torch.randn(2, 8)
    first, second = _compile(x), _compile(x)
    assert not first.jit.cache_hit and second.jit.cache_hit
    torch.testing.assert_close(first(x), second(x), rtol=0, atol=0)
    assert list(tmp_path.rglob("*.o"))


def test_corrupt_entries_are_misses_and_get_rewritten(tmp_path, monkeypatch):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    x = torch.randn(2, 8)
    _compile(x)
    for path in tmp_path.rglob("*.o"):
        path.write_bytes(b"garbage")
    again = _compile(x)
    assert not again.jit.cache_hit
    assert again(x).shape == (2, 4)
    assert all(p.read_bytes().startswith(b"CUVILOB\0") for p in tmp_path.rglob("*.o"))


def test_cache_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CUVIL_CACHE", "0")
    x = torch.randn(2, 8)
    assert not _compile(x).jit.cache_hit and not _compile(x).jit.cache_hit
    assert not list(tmp_path.rglob("*.o"))


def test_debug_builds_are_cached_with_their_dwarf(tmp_path, monkeypatch):
    """A debug build's object (DWARF and all) is cached and a warm debug build is
    registered with the debuggers' JIT interface like a cold one (GDB stopping in a
    warm build: tests/debuggers/test_gdb_warm.py)."""
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    x = torch.randn(2, 8)
    torch.manual_seed(0)
    model = nn.Linear(8, 4)
    cold = cuvil.compile(model, [x], options={"debug": True})
    warm = cuvil.compile(model, [x], options={"debug": True})
    assert not cold.jit.cache_hit and warm.jit.cache_hit and warm.jit.reused
    assert warm.jit.registered and cold.debug_key == warm.debug_key
    assert list(tmp_path.rglob("*.o")) and list(tmp_path.rglob("*.ir"))
    torch.testing.assert_close(cold(x), warm(x), rtol=0, atol=0)
