"""A disk cache of compiled object code, so compiling the same model again skips LLVM.

The key covers everything that decides the machine code: the generated LLVM IR, the opt
level, the target triple, CPU name and features, and the LLVM and Cuvil versions (a key of
the IR alone collides across code-generation options). Objects live in
``$CUVIL_CACHE_DIR`` (default ``$XDG_CACHE_HOME/cuvil`` or ``~/.cache/cuvil``), one file
per key at ``objects/KEY[:2]/KEY.o``; ``CUVIL_CACHE=0`` turns the cache off.

An entry is an 88-byte header and the object::

    magic  b"CUVILOB\\0"   8 bytes
    format FORMAT          u32 little-endian
    flags  0               u32
    length len(object)     u64
    key    sha256(key)     32 bytes: the entry belongs to this key, not to another
    digest sha256(object)  32 bytes

Every read checks all of it (and that the path is a regular file, not a link, a
directory or a FIFO, opened with ``O_NOFOLLOW``) before the object can reach LLVM; the
caller may check the object further (``check``: the JIT compares its debug-key note).
An entry that fails is deleted, counted (``stats().corrupt_evicted``), logged once at
DEBUG on the ``cuvil.cache`` logger, and the caller rebuilds it: a bad entry is a miss,
never an error and never executed. Writes go to a temporary file in the entry's own
directory (``O_EXCL``, so never through a link; mode 0666 less the umask or
``CUVIL_CACHE_UMASK``, cachefiles.py) renamed over the entry, so readers see
the old entry or the new one, never half a file; a link or directory in the entry's
place, or in place of a shard directory, is removed first (removing a link never touches
what it points to); a read through such a link reads nothing. The cache root itself may be a link (a cache moved to another disk
is the user's choice). docs/RELIABILITY.md has the threat model: the checksums catch
accidents (a crash mid-write, a full disk, bit rot, a stray edit), not an attacker who
can write the cache directory, who could as well write the user's site-packages.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import stat
import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import llvmlite
import llvmlite.binding as llvm

from ..codegen.target import host_cpu, target_triple
from ..version import __version__
from . import cachefiles, cachestats

__all__ = [
    "cache_key",
    "load_object",
    "store_object",
    "evict",
    "cache_dir",
    "enabled",
    "stats",
    "reset_stats",
    "CacheStats",
    "MAGIC",
    "FORMAT",
    "HEADER",
    "read_entry",
    "unpack_entry",
    "remove_path",
]

MAGIC = b"CUVILOB\0"
FORMAT = 1
_HEAD = struct.Struct("<8sIIQ32s32s")
HEADER = _HEAD.size  # 88
MAX_ENTRY = 1 << 30  # a bigger file is not an object this cache wrote
_log = logging.getLogger("cuvil.cache")


class CacheStats(NamedTuple):
    """This process's lookups (`hits`, `misses`: every lookup that found no usable
    entry, `corrupt_evicted` of them bad ones deleted, `stores`), and what is on disk
    now (`entries`, `bytes`) under `dir`."""

    hits: int
    misses: int
    corrupt_evicted: int
    stores: int
    entries: int
    bytes: int
    dir: str


_counts = {"hits": 0, "misses": 0, "corrupt_evicted": 0, "stores": 0}
_reported: set[str] = set()
_lock = threading.Lock()


def _count(added_bytes: int = 0, **deltas: int) -> dict:
    """Add to this process's counters and to the cache's shared ones (cachestats.py);
    the shared counters after it ({}: not written)."""
    with _lock:
        for name, delta in deltas.items():
            _counts[name] += delta
    return cachestats.record(cache_dir(), added_bytes=added_bytes, **deltas)


def enabled() -> bool:
    return os.environ.get("CUVIL_CACHE", "1") != "0"


def cache_dir() -> Path:
    if os.environ.get("CUVIL_CACHE_DIR"):
        return Path(os.environ["CUVIL_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache"
    )
    return Path(base) / "cuvil"


def cache_key(llvm_ir: str, opt: int, extra: str = "") -> str:
    cpu, features = host_cpu()
    h = hashlib.sha256()
    for part in (
        llvm_ir,
        str(opt),
        target_triple(),
        cpu,
        features,
        extra,
        ".".join(map(str, llvm.llvm_version_info)),
        llvmlite.__version__,
        __version__,
    ):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _path(key: str) -> Path:
    return cache_dir() / "objects" / key[:2] / f"{key}.o"


def _read(path: Path) -> tuple[bytes | None, str | None]:
    """(the file's bytes, None), or (None, why it is no entry); (None, None): absent."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):  # a cache dir that is a file: off
        return None, None
    except OSError as e:
        return None, f"cannot be examined ({e.strerror})"
    if stat.S_ISLNK(st.st_mode):
        return None, "is a symbolic link"
    if not stat.S_ISREG(st.st_mode):
        return None, "is not a regular file"
    if st.st_size > MAX_ENTRY:
        return None, f"is {st.st_size} bytes, over the {MAX_ENTRY}-byte limit"
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        return None, f"cannot be opened ({e.strerror})"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None, "is not a regular file"
        chunks, size = [], 0
        while size <= MAX_ENTRY and (chunk := os.read(fd, 1 << 20)):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks), None
    except OSError as e:
        return None, f"cannot be read ({e.strerror})"
    finally:
        os.close(fd)


def _unpack(data: bytes, key: str) -> tuple[bytes | None, str | None]:
    """(the object, None) if `data` is a sound entry of `key`, else (None, why)."""
    if len(data) < HEADER:
        return None, f"is {len(data)} bytes, shorter than its {HEADER}-byte header"
    magic, fmt, flags, length, key_digest, digest = _HEAD.unpack_from(data)
    if magic != MAGIC:
        return None, "has no Cuvil entry header (an older format, or overwritten)"
    if fmt != FORMAT or flags != 0:
        return None, f"has format {fmt} (flags {flags:#x}); this Cuvil reads {FORMAT}"
    if length != len(data) - HEADER:
        return None, f"says {length} object bytes but holds {len(data) - HEADER}"
    if key_digest != hashlib.sha256(key.encode()).digest():
        return None, "belongs to another key"
    body = data[HEADER:]
    if hashlib.sha256(body).digest() != digest:
        return None, "fails its SHA-256 checksum"
    if not body.startswith(b"\x7fELF"):
        return None, "holds no ELF object"
    return body, None


def load_object(
    key: str, check: Callable[[bytes], str | None] | None = None, count: bool = True
) -> bytes | None:
    """The verified object cached under `key`, or None. `check(object)` may name a
    further problem (None: sound); a bad entry is evicted. `count=False`: a peek that
    leaves the hit and miss counters alone."""
    if not enabled():
        return None
    path = _path(key)
    if not _real_dirs(path):  # a link in place of a shard: read and delete nothing
        if count:
            _count(misses=1)
        return None
    data, problem = _read(path)
    body = None
    if data is not None:
        body, problem = _unpack(data, key)
    if body is not None and check is not None:
        problem = check(body)
    bad = problem is not None
    if bad:
        _evict(path, problem)
        body = None
    if body is not None:
        _touch(path)
    if count:
        _count(hits=1) if body is not None else _count(
            misses=1, corrupt_evicted=int(bad)
        )
    elif bad:
        _count(corrupt_evicted=1)
    return body


def _touch(path: Path) -> None:
    """Mark a hit entry used now (its mtime: the LRU order of cachemaint.gc)."""
    try:
        os.utime(path, follow_symlinks=False)
    except (OSError, NotImplementedError):
        pass  # a read-only cache keeps its old order


def _real_dirs(path: Path) -> bool:
    """Are the shard directory and ``objects`` above it real directories (or absent)?
    `store_object` replaces a link or file there."""
    for folder in (path.parent, path.parent.parent):
        mode = _mode(folder)
        if mode and not stat.S_ISDIR(mode):
            return False
    return True


def evict(key: str, problem: str) -> None:
    """Delete `key`'s entry, which failed a check after `load_object` returned it
    (LLVM could not load the object, say): that lookup counts as a miss, not a hit."""
    _count(hits=-1, misses=1, corrupt_evicted=1)
    _evict(_path(key), problem)


def _evict(path: Path, problem: str) -> None:
    """Delete a bad entry (the caller counts it) and log it once."""
    _remove(path)
    if str(path) not in _reported:  # a read-only cache keeps it: say so once
        _reported.add(str(path))
        _log.debug("cache entry %s %s: deleted, to be rebuilt", path, problem)


def _remove(path: Path) -> None:
    """Remove whatever is at `path`: a link itself (not its target), a file, or a
    real directory with what is in it. Errors are left to the next read."""
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
    except OSError:
        pass


def _real_dir(path: Path) -> None:
    """Make `path` a real directory (a link or file in its place is removed)."""
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            return
        _remove(path)
    except FileNotFoundError:
        pass
    cachefiles.make_dir(path)


def store_object(key: str, data: bytes) -> None:
    if not enabled():
        return
    path = _path(key)
    header = _HEAD.pack(
        MAGIC,
        FORMAT,
        0,
        len(data),
        hashlib.sha256(key.encode()).digest(),
        hashlib.sha256(data).digest(),
    )
    tmp = None
    try:
        cachefiles.make_dir(cache_dir())
        _real_dir(path.parent.parent)
        _real_dir(path.parent)
        fd, tmp = cachefiles.create_temp(path.parent)  # 0666 less the umask
        with os.fdopen(fd, "wb") as f:
            f.write(header + data)
        if stat.S_ISDIR(_mode(path)):
            _remove(path)
        os.replace(tmp, path)  # a link at `path` is replaced, never followed
        tmp = None
        counts = _count(stores=1, added_bytes=HEADER + len(data))
    except OSError:
        return  # a cache that cannot be written is only slower
    finally:
        if tmp is not None:
            _remove(Path(tmp))
    from .cachemaint import after_store  # (it imports this module)

    after_store(cache_dir(), counts)


def _mode(path: Path) -> int:
    try:
        return os.lstat(path).st_mode
    except OSError:
        return 0


def stats() -> CacheStats:
    """The counters of this process and the cache's size on disk (`cuvil.cache_stats`)."""
    entries = size = 0
    root = cache_dir()
    objects = root / "objects"
    try:
        shards = [s for s in os.scandir(objects) if s.is_dir(follow_symlinks=False)]
    except OSError:
        shards = []
    for shard in shards:
        try:
            found = list(os.scandir(shard.path))
        except OSError:
            continue
        for e in found:
            if e.name.endswith(".o") and e.is_file(follow_symlinks=False):
                entries += 1
                size += e.stat(follow_symlinks=False).st_size
    with _lock:
        counts = dict(_counts)
    return CacheStats(**counts, entries=entries, bytes=size, dir=str(root))


def reset_stats() -> None:
    """Zero this process's counters (the on-disk figures are measured, not counted)."""
    with _lock:
        for name in _counts:
            _counts[name] = 0
        _reported.clear()


# for cachemaint.py (verify, clear, gc): the same checks and removal as a lookup's
read_entry, unpack_entry, remove_path = _read, _unpack, _remove
