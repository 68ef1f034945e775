"""The object cache's counters on disk, shared by every process that uses the cache.

``CACHE_DIR/stats.json`` holds, per cache level, the lookups (hits, misses, of them
corrupt entries evicted), the stores and the entries ``gc`` evicted, and an estimate of
the entries' bytes (kept so that the size limit is checked without a scan after every
store; a scan corrects it). Every update takes an exclusive ``fcntl.flock`` on
``CACHE_DIR/stats.lock`` (a separate file: the stats file itself is replaced, by a
temporary file renamed over it, so a reader or a crash never sees half a file), reads,
adds and writes: concurrent processes never lose a count. An update that cannot be made
(a read-only cache) is skipped: the counters are a report, not a reason to fail.

There is one level, ``object`` (LLVM object code keyed by the LLVM IR, the target, the
options and the versions: a hit skips LLVM's optimization and code generation). Capture,
Cuvil's passes and Cuvil's code generation run on every compile: no level caches them.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from pathlib import Path

from . import cachefiles

__all__ = ["LEVELS", "FIELDS", "STATS", "LOCK", "record", "read", "zero", "set_bytes"]

LEVELS = ("object",)
FIELDS = ("hits", "misses", "corrupt_evicted", "stores", "gc_evicted")
STATS, LOCK = "stats.json", "stats.lock"
FORMAT = 1


def _empty() -> dict:
    return {
        "format": FORMAT,
        "levels": {lv: dict.fromkeys(FIELDS, 0) for lv in LEVELS},
        "bytes": None,  # the entries' bytes as counted by stores; None: not known
        "updated": None,
    }


@contextlib.contextmanager
def _locked(root: Path):
    """Hold the cache's stats lock (created with the cache directory if need be)."""
    cachefiles.make_dir(root)
    fd = cachefiles.open_lock(root / LOCK)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing drops the lock


def read(root: Path) -> dict:
    """The counters under `root` (zeros where there is no sound stats file)."""
    try:
        with open(root / STATS, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return _empty()
    base = _empty()
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return base
    for level, counts in (data.get("levels") or {}).items():
        if level in base["levels"] and isinstance(counts, dict):
            for name in FIELDS:
                value = counts.get(name, 0)
                base["levels"][level][name] = value if isinstance(value, int) else 0
    if isinstance(data.get("bytes"), int):
        base["bytes"] = data["bytes"]
    if isinstance(data.get("updated"), (int, float)):
        base["updated"] = data["updated"]
    return base


def _write(root: Path, data: dict) -> None:
    data["updated"] = time.time()
    fd, tmp = cachefiles.create_temp(root, ".stats.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, root / STATS)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def record(root: Path, level: str = "object", added_bytes: int = 0, **deltas) -> dict:
    """Add `deltas` (FIELDS names) to `level`'s counters and `added_bytes` to the
    byte estimate, atomically across processes; the counters after it ({} when they
    could not be updated)."""
    try:
        with _locked(root):
            data = read(root)
            counts = data["levels"][level]
            for name, delta in deltas.items():
                counts[name] += delta
            if data["bytes"] is not None:
                data["bytes"] = max(0, data["bytes"] + added_bytes)
            _write(root, data)
            return data
    except OSError:
        return {}


def set_bytes(root: Path, size: int) -> None:
    """Record the entries' bytes as measured by a scan."""
    with contextlib.suppress(OSError), _locked(root):
        data = read(root)
        data["bytes"] = size
        _write(root, data)


def zero(root: Path) -> None:
    """Zero the counters (the byte estimate stays)."""
    with _locked(root):
        data = read(root)
        fresh = _empty()
        fresh["bytes"] = data["bytes"]
        _write(root, fresh)
