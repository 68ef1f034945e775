"""Issue 17's cache acceptance: a corrupted object-cache entry is never executed, never
crashes a compile, is rebuilt by the next compile, and the compile after that hits again.

The corruptions (tests/runtime/cache_faults.py): truncations at 7 offsets, bit flips in
every header field and across the object, zero-filled ranges, garbage, appended bytes,
two models' entries swapped, another model's entry or bare ELF object under this key,
an entry of the previous (headerless) format, forged headers over a wrong object, links
(to another entry, to a user's file, dangling), directories, a FIFO, an unreadable file.
The fast test runs them all in one child (none can reach LLVM by design); the slow tier
runs each whose bytes would reach LLVM if verification slipped in its own children, the
compile in a fresh process after the one that wrote the cache.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import torch
from torch import nn

import cuvil
from cuvil.runtime import objcache

_spec = importlib.util.spec_from_file_location(
    "cache_faults", Path(__file__).with_name("cache_faults.py")
)
cf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cf)


def _check_row(row: dict) -> None:
    name = row["name"]
    assert not row["first"]["hit"], f"{name}: the bad entry was used"
    assert row["first"]["correct"] and row["other"]["correct"], name
    assert row["second"]["hit"] and row["second"]["correct"], f"{name}: no hit again"
    assert row["healthy"], f"{name}: the entry was not rebuilt as a regular file"
    assert row["user_intact"], f"{name}: the user's file changed"
    expect = 2 if name == "swap-with-other-model" else 1
    assert row["stats"]["corrupt_evicted"] == expect, (name, row["stats"])


def test_every_corruption_is_detected_rebuilt_and_hit_again(tmp_path):
    assert len(cf.CORRUPTIONS) >= 30
    user = cf.make_user_file(tmp_path)
    rc, rows, err = cf.child(tmp_path / "cache", user, cf.CORRUPTIONS)
    assert rc == 0, err[-3000:]
    assert [r["name"] for r in rows] == cf.CORRUPTIONS
    for row in rows:
        _check_row(row)


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """A cache holding models a and b, written by a process of its own."""
    folder = tmp_path_factory.mktemp("pristine")
    rc, rows, err = cf.child(folder / "cache", cf.make_user_file(folder), [])
    assert rc == 0, err[-3000:]
    return folder / "cache", rows[0]["entries"]


@pytest.mark.slow
@pytest.mark.parametrize("name", cf.BODY)
def test_a_corruption_reaching_the_object_is_rebuilt_in_a_fresh_process(
    name, pristine, tmp_path
):
    source, paths = pristine
    cache = tmp_path / "cache"
    shutil.copytree(source, cache, symlinks=True)
    a, b = (cache / Path(paths[m]).relative_to(source) for m in "ab")
    user = cf.make_user_file(tmp_path)
    cf.corrupt(name, a, b, user)
    rc, rows, err = cf.child(cache, user, [])
    assert rc == 0, f"{name}: the next compile died: {err[-3000:]}"
    (row,) = rows
    assert not row["first"]["hit"] and row["first"]["correct"], name
    assert row["second"]["hit"] and row["second"]["correct"], name
    assert row["other"]["correct"] and cf.healthy(a) and cf.healthy(b), name
    assert row["stats"]["corrupt_evicted"] == (2 if name.startswith("swap") else 1)


def _compile(x):
    torch.manual_seed(0)
    return cuvil.compile(nn.Sequential(nn.Linear(8, 4), nn.ReLU()), [x])


def test_a_bad_entry_is_reported_once_at_debug_level(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    x = torch.randn(2, 8)
    _compile(x)
    (entry,) = cf.entries(tmp_path)
    entry.write_bytes(entry.read_bytes()[:-1])
    cuvil.reset_cache_stats()
    with caplog.at_level(logging.DEBUG, logger="cuvil.cache"):
        assert not _compile(x).jit.cache_hit
        assert _compile(x).jit.cache_hit
    (record,) = [r for r in caplog.records if r.name == "cuvil.cache"]
    assert record.levelno == logging.DEBUG and str(entry) in record.getMessage()
    assert "says 5" in record.getMessage() or "object bytes" in record.getMessage()
    stats = cuvil.cache_stats()
    assert (stats.hits, stats.misses, stats.corrupt_evicted) == (1, 1, 1)
    assert stats.entries == 1 and stats.bytes == entry.stat().st_size
    assert stats.dir == str(tmp_path)


def test_stats_count_a_miss_a_store_and_a_hit(tmp_path, monkeypatch):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    cuvil.reset_cache_stats()
    x = torch.randn(2, 8)
    _compile(x)
    _compile(x)
    s = cuvil.cache_stats()
    assert (s.hits, s.misses, s.corrupt_evicted, s.stores, s.entries) == (1, 1, 0, 1, 1)
    assert s.bytes > objcache.HEADER


def test_a_link_in_place_of_a_shard_directory_is_replaced_not_followed(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path / "cache"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    key = "ab" + "0" * 62
    shard = tmp_path / "cache" / "objects" / "ab"
    shard.parent.mkdir(parents=True)
    shard.symlink_to(elsewhere, target_is_directory=True)
    theirs = elsewhere / f"{key}.o"
    theirs.write_bytes(b"not a cache entry")
    assert objcache.load_object(key) is None  # read through the link: nothing
    assert theirs.read_bytes() == b"not a cache entry"
    objcache.store_object(key, b"\x7fELF" + b"\0" * 60)
    assert not shard.is_symlink() and shard.is_dir()
    assert list(elsewhere.iterdir()) == [theirs]
    assert theirs.read_bytes() == b"not a cache entry"
    assert objcache.load_object(key) == b"\x7fELF" + b"\0" * 60


def test_concurrent_writers_and_readers_never_see_a_bad_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    cuvil.reset_cache_stats()
    key = "cd" + "1" * 62
    payloads = [b"\x7fELF" + bytes([i]) * (4096 * (i + 1)) for i in range(6)]
    seen: list[bytes | None] = []

    def write(data: bytes) -> None:
        for _ in range(40):
            objcache.store_object(key, data)

    def read() -> None:
        for _ in range(200):
            seen.append(objcache.load_object(key))

    threads = [threading.Thread(target=write, args=(p,)) for p in payloads]
    threads += [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cuvil.cache_stats().corrupt_evicted == 0
    assert all(s is None or s in payloads for s in seen)
    assert objcache.load_object(key) in payloads
    assert not [p for p in (tmp_path / "objects").rglob("*") if p.suffix == ".tmp"]


_WRITER = """
import json, sys
sys.path.insert(0, sys.argv[1])
import cache_faults as cf
print(json.dumps(cf.compile_once("a")))
"""


def test_concurrent_compiling_processes_share_one_sound_entry(tmp_path, monkeypatch):
    env = {**os.environ, "CUVIL_CACHE_DIR": str(tmp_path), "CUVIL_CACHE": "1"}
    here = str(Path(__file__).parent)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, here],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [e[-2000:] for _, e in outs]
    assert all(json.loads(o.splitlines()[-1])["correct"] for o, _ in outs)
    (entry,) = cf.entries(tmp_path)
    assert entry.read_bytes().startswith(objcache.MAGIC)
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    assert cf.compile_once("a")["hit"]


def test_a_cache_dir_that_is_a_file_is_only_slower(tmp_path, monkeypatch):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_bytes(b"the user's")
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(not_a_dir))
    cuvil.reset_cache_stats()
    x = torch.randn(2, 8)
    assert not _compile(x).jit.cache_hit and not _compile(x).jit.cache_hit
    s = cuvil.cache_stats()
    assert (s.hits, s.misses, s.corrupt_evicted, s.stores, s.entries) == (0, 2, 0, 0, 0)
    assert not_a_dir.read_bytes() == b"the user's"
