"""Keeping the object cache: list its entries, verify them, clear it, evict to a size.

An entry is ``objects/KK/KEY.o`` (KEY: 64 hex digits, KK its first two); its last use
is its mtime (``objcache.load_object`` touches an entry it hits, and a store writes
it). Only such files (and the cache's own temporary files and stats) are ever
removed: anything else in the cache directory (the symbol store under ``symbols/``, a
user's file) is left where it is. ``CUVIL_CACHE_MAX`` (``500M``, ``2G``, bytes; K, M,
G are powers of 1024) is the size limit: after a store the byte estimate of
cachestats.py is compared with it, and only when it is over does a scan evict the least
recently used entries (``gc``) until the cache fits.
"""

from __future__ import annotations

import os
import re
import stat
import time
from pathlib import Path
from typing import NamedTuple

from ..errors import CuvilError
from . import cachefiles, cachestats, objcache
from .elfinfo import Elf

__all__ = [
    "Entry",
    "MAX_ENV",
    "entries",
    "verify",
    "clear",
    "gc",
    "max_size",
    "parse_size",
    "after_store",
]

MAX_ENV = "CUVIL_CACHE_MAX"
_KEY = re.compile(r"[0-9a-f]{64}")
_SIZE = re.compile(r"(\d+)\s*([KMG]?)(?:i?B)?", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


class Entry(NamedTuple):
    key: str
    path: Path
    bytes: int
    last_use: float  # seconds since the epoch (the file's mtime)


def _scan(folder: Path) -> list[os.DirEntry]:
    try:
        return list(os.scandir(folder))
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        raise CuvilError(
            f"cache directory '{folder}' is not a directory",
            hint="point CUVIL_CACHE_DIR (or --cache-dir) at a directory",
        ) from None
    except OSError as e:
        raise CuvilError(
            f"cache directory '{folder}' cannot be read ({e.strerror})",
            hint="fix its permissions or point CUVIL_CACHE_DIR at another directory",
        ) from None


def _shards(root: Path) -> list[os.DirEntry]:
    _scan(root)  # the root itself must be a readable directory (or absent)
    objects = root / "objects"
    if os.path.lexists(objects) and not objects.is_dir():
        raise CuvilError(
            f"'{objects}' is not a directory",
            hint="remove it: the cache keeps its entries there",
        )
    found = _scan(objects)
    return [s for s in found if len(s.name) == 2 and s.is_dir(follow_symlinks=False)]


def _candidates(root: Path):
    """(key, DirEntry) of every name an entry may have (of any file type)."""
    for shard in _shards(root):
        for e in _scan(Path(shard.path)):
            key = e.name[:-2]
            if e.name.endswith(".o") and _KEY.fullmatch(key) and key[:2] == shard.name:
                yield key, e


def entries(root: Path) -> list[Entry]:
    """The regular-file entries under `root`, least recently used first."""
    found = []
    for key, e in _candidates(root):
        try:
            st = e.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            found.append(Entry(key, Path(e.path), st.st_size, st.st_mtime))
    return sorted(found, key=lambda x: (x.last_use, x.key))


def _elf_problem(body: bytes) -> str | None:
    try:
        elf = Elf(body)
        key = elf.cuvil_key
    except Exception as e:  # a malformed ELF may fail any way while it is parsed
        return f"holds a malformed ELF object ({type(e).__name__})"
    if not elf.relocatable:
        return "holds an ELF file that is not a relocatable object"
    if not key:
        return "holds an object without a Cuvil debug key"
    return None


def verify(root: Path) -> tuple[int, list[tuple[str, str]]]:
    """Check every entry (header, key, SHA-256 checksum, a relocatable ELF with a
    debug key) and remove the bad ones: (entries checked, [(path, problem)] removed)."""
    checked, removed = 0, []
    for key, e in list(_candidates(root)):
        checked += 1
        data, problem = objcache.read_entry(Path(e.path))
        if data is not None:
            body, problem = objcache.unpack_entry(data, key)
            if body is not None:
                problem = _elf_problem(body)
        if problem is not None:
            objcache.remove_path(Path(e.path))
            removed.append((e.path, problem))
    if removed:
        cachestats.record(root, corrupt_evicted=len(removed))
        cachestats.set_bytes(root, sum(x.bytes for x in entries(root)))
    return checked, removed


def clear(root: Path) -> tuple[int, int]:
    """Remove every entry and the cache's temporary files: (entries, bytes) removed.
    Empty shard directories go too; nothing else is touched."""
    count = size = 0
    for entry in entries(root):
        objcache.remove_path(entry.path)
        count, size = count + 1, size + entry.bytes
    for shard in _shards(root):
        for e in _scan(Path(shard.path)):
            if e.name.startswith(".") and e.name.endswith(".tmp"):
                objcache.remove_path(Path(e.path))
        try:
            os.rmdir(shard.path)  # only when empty
        except OSError:
            pass
    if (root / cachestats.STATS).exists():
        cachestats.set_bytes(root, 0)
    return count, size


def gc(root: Path, limit: int) -> list[Entry]:
    """Remove the least recently used entries until the rest fit in `limit` bytes;
    the removed entries, oldest first."""
    found = entries(root)
    total = sum(e.bytes for e in found)
    removed = []
    for entry in found:
        if total <= limit:
            break
        objcache.remove_path(entry.path)
        removed.append(entry)
        total -= entry.bytes
    if removed:
        cachestats.record(root, gc_evicted=len(removed))
    cachestats.set_bytes(root, total)
    return removed


def parse_size(text: str) -> int | None:
    """``500M`` / ``2G`` / ``4096`` -> bytes (K, M, G: powers of 1024); None: invalid."""
    m = _SIZE.fullmatch(text.strip())
    n = int(m.group(1)) * _UNITS[m.group(2).lower()] if m else 0
    return n if n >= 1 else None


def max_size() -> int | None:
    """``$CUVIL_CACHE_MAX`` in bytes (None: unset). An invalid value is one warning
    line on stderr (once per value) and no limit: a cache setting never fails a
    compile."""
    text = os.environ.get(MAX_ENV, "").strip()
    if not text:
        return None
    size = parse_size(text)
    if size is None:
        cachefiles.warn_setting(
            MAX_ENV,
            text,
            "is not a size (bytes, or a whole number with K, M or G, powers of 1024: "
            "500M, 2G); the object cache has no size limit",
        )
    return size


def after_store(root: Path, counts: dict) -> None:
    """The automatic size check after a store (`counts`: cachestats.record's)."""
    limit = max_size()
    if limit is None or not counts:
        return
    estimate = counts.get("bytes")
    if estimate is None:  # not known yet: measure once
        try:
            estimate = sum(e.bytes for e in entries(root))
        except CuvilError:
            return
        cachestats.set_bytes(root, estimate)
    if estimate > limit:
        try:
            gc(root, limit)
        except CuvilError:
            pass


def age(seconds: float) -> str:
    """``3s``, ``5m``, ``2h``, ``4d`` ago."""
    d = max(0.0, time.time() - seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if d >= size:
            return f"{int(d // size)}{unit}"
    return f"{int(d)}s"
