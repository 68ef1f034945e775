"""The object cache's upkeep: counters shared by processes, verify, clear, LRU gc and
the CUVIL_CACHE_MAX limit (compiler/runtime/cachestats.py, cachemaint.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import torch
from torch import nn

import cuvil
from cuvil.runtime import cachefiles, cachemaint, cachestats, objcache

ROOT = Path(__file__).resolve().parents[2]
COLD = """
import torch, cuvil
from torch import nn
torch.manual_seed(0)
x = torch.randn(2, 8)
a = cuvil.compile(nn.Sequential(nn.Linear(8, 16), nn.ReLU()), [x])
b = cuvil.compile(nn.Sequential(nn.Linear(8, 4), nn.Tanh()), [x])
assert not a.jit.cache_hit and not b.jit.cache_hit
"""


def _models():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU()), nn.Sequential(
        nn.Linear(8, 4), nn.Tanh()
    )


def _run(code: str, env: dict) -> None:
    subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, **env}, check=True, timeout=300
    )


def _object(level: str = "object") -> dict:
    return cachestats.read(objcache.cache_dir())["levels"][level]


def test_cold_then_warm_compile_counts_misses_then_one_hit_per_module(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    _run(COLD, {"CUVIL_CACHE_DIR": str(tmp_path)})  # another process: cold
    cold = _object()
    assert (cold["hits"], cold["misses"], cold["stores"]) == (0, 2, 2)
    x = torch.randn(2, 8)
    warm = [cuvil.compile(m, [x]) for m in _models()]  # this process: warm
    assert all(c.jit.cache_hit for c in warm)
    after = _object()
    assert (after["hits"], after["misses"], after["stores"]) == (2, 2, 2)


def _corrupt_object_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[objcache.HEADER + 40] ^= 0xFF  # inside the ELF object, past the header
    path.write_bytes(bytes(data))


def test_verify_removes_a_corrupt_entry_and_the_next_compile_rebuilds_it(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    x = torch.randn(2, 8)
    model = _models()[0]
    want = model(x)
    cuvil.compile(model, [x])
    (entry,) = cachemaint.entries(tmp_path)
    _corrupt_object_byte(entry.path)
    checked, removed = cachemaint.verify(tmp_path)
    assert checked == 1 and [p for p, _ in removed] == [str(entry.path)]
    assert "checksum" in removed[0][1]
    assert not entry.path.exists()
    rebuilt = cuvil.compile(model, [x])
    assert not rebuilt.jit.cache_hit  # rebuilt from IR, never the corrupt bytes
    torch.testing.assert_close(rebuilt(x), want)
    assert cuvil.compile(model, [x]).jit.cache_hit
    assert cachemaint.verify(tmp_path) == (1, [])


def _fake(key_char: str, size: int = 1000) -> str:
    """Store an entry of `size` object bytes (ELF magic: enough for load_object)."""
    key = key_char * 64
    objcache.store_object(key, b"\x7fELF" + b"\0" * (size - 4))
    return key


def _used(key: str, when: float) -> None:
    os.utime(objcache.cache_dir() / "objects" / key[:2] / f"{key}.o", (when, when))


def test_gc_evicts_the_least_recently_used_first_and_a_hit_counts_as_use(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    a, b, c = _fake("a"), _fake("b"), _fake("c")
    _used(a, 1000), _used(b, 2000), _used(c, 3000)
    assert objcache.load_object(a) is not None  # a hit: `a` is now the newest
    order = [e.key for e in cachemaint.entries(tmp_path)]
    assert order == [b, c, a]
    one = objcache.HEADER + 1000
    assert [e.key for e in cachemaint.gc(tmp_path, 2 * one)] == [b]
    assert [e.key for e in cachemaint.gc(tmp_path, one)] == [c]
    assert [e.key for e in cachemaint.entries(tmp_path)] == [a]
    assert _object()["gc_evicted"] == 2


def test_cache_max_is_enforced_after_a_store(tmp_path, monkeypatch):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    one = objcache.HEADER + 1000
    monkeypatch.setenv(cachemaint.MAX_ENV, str(2 * one))
    a, b = _fake("a"), _fake("b")
    _used(a, 1000), _used(b, 2000)
    c = _fake("c")  # over the limit: `a`, the least recently used, goes
    assert {e.key for e in cachemaint.entries(tmp_path)} == {b, c}
    monkeypatch.setenv(cachemaint.MAX_ENV, "1K")  # 1024 < one entry: all go
    _fake("d")
    assert cachemaint.entries(tmp_path) == []


def test_an_invalid_cache_max_is_one_warning_line_once_and_no_limit(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(cachemaint.MAX_ENV, "lots")
    monkeypatch.setattr(cachefiles, "_warned", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _fake("a"), _fake("b")
    assert len(cachemaint.entries(tmp_path)) == 2  # no limit
    assert caught == []  # not Python's warning (file:line: UserWarning + source)
    err = capsys.readouterr().err
    assert err == (
        "cuvil: warning: CUVIL_CACHE_MAX='lots' is not a size (bytes, or a whole "
        "number with K, M or G, powers of 1024: 500M, 2G); the object cache has no "
        "size limit\n"
    )


def test_clear_removes_only_cuvil_cache_files(tmp_path, monkeypatch):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    _fake("a"), _fake("b")
    mine = [
        tmp_path / "notes.txt",
        tmp_path / "objects" / "README",
        tmp_path / "objects" / "aa" / "notes.o",
        tmp_path / "symbols" / ".build-id" / "ab" / "cd.debug",
    ]
    for path in mine:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("the user's\n")
    assert cachemaint.clear(tmp_path) == (2, 2 * (objcache.HEADER + 1000))
    assert cachemaint.entries(tmp_path) == []
    assert all(p.read_text() == "the user's\n" for p in mine)
    assert not (tmp_path / "objects" / "bb").exists()  # an emptied shard goes


WORKER = """
import sys
from pathlib import Path
from cuvil.runtime import cachestats
root = Path(sys.argv[1])
for _ in range(int(sys.argv[2])):
    cachestats.record(root, hits=1, added_bytes=3)
"""


def test_concurrent_processes_never_lose_a_count(tmp_path):
    n = 300
    procs = [
        subprocess.Popen([sys.executable, "-c", WORKER, str(tmp_path), str(n)])
        for _ in range(2)
    ]
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    cachestats.set_bytes(tmp_path, 0)
    cachestats.record(tmp_path, misses=1, added_bytes=5)
    data = cachestats.read(tmp_path)
    assert data["levels"]["object"]["hits"] == 2 * n
    assert data["levels"]["object"]["misses"] == 1 and data["bytes"] == 5


def test_a_broken_stats_file_reads_as_zeros_and_is_rewritten(tmp_path):
    (tmp_path / cachestats.STATS).write_text("{ half a fi")
    assert cachestats.read(tmp_path)["levels"]["object"]["hits"] == 0
    cachestats.record(tmp_path, hits=1)
    assert cachestats.read(tmp_path)["levels"]["object"]["hits"] == 1
