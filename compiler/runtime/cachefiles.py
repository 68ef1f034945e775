"""How the object cache creates its files and folders, and says a setting is wrong.

**Modes.** Entries, ``stats.json``, ``stats.lock`` and the temporary files are created
with mode 0666 and the folders with 0777, less the umask: the mode every program's
files get (ccache does the same). A user's own cache is as private as the umask and
the folder's permissions make it; a cache several users share (a CI runner's cache
folder) works when they share a group, the folder belongs to it with its setgid bit
set (new shard folders then inherit the group) and the mask leaves the group write
access. ``CUVIL_CACHE_UMASK`` (octal, e.g. ``002``) is the mask for the cache alone,
applied with ``fchmod`` on what Cuvil just created (the process umask is never
changed: another thread's files keep theirs); a folder keeps its setgid bit.

Nothing here weakens the checks of objcache.py: temporary files are created with
``O_EXCL | O_NOFOLLOW`` (never through a link), modes are set on the open descriptor
(never through a path), and every entry is verified before use whoever wrote it.
Whoever can write a shared cache is trusted as its owner is (docs/RELIABILITY.md).
"""

from __future__ import annotations

import os
import re
import secrets
import stat
import sys
from pathlib import Path

__all__ = [
    "UMASK_ENV",
    "cache_umask",
    "create_temp",
    "make_dir",
    "open_lock",
    "warn_setting",
]

UMASK_ENV = "CUVIL_CACHE_UMASK"
_OCTAL = re.compile(r"(?:0o?)?([0-7]{1,3})")
_warned: set[tuple[str, str]] = set()
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def warn_setting(name: str, text: str, problem: str) -> None:
    """Say once per value, in one line on stderr, that the environment variable
    `name` holds `text`, which `problem` describes (what is allowed, and what Cuvil
    does instead). A cache setting never fails a compile."""
    if (name, text) in _warned:
        return
    _warned.add((name, text))
    print(f"cuvil: warning: {name}={text!r} {problem}", file=sys.stderr)


def cache_umask() -> int | None:
    """``$CUVIL_CACHE_UMASK`` as a mask (None: unset or invalid, the umask rules)."""
    text = os.environ.get(UMASK_ENV, "").strip()
    if not text:
        return None
    m = _OCTAL.fullmatch(text.lower())
    if m is None:
        warn_setting(
            UMASK_ENV,
            text,
            "is not an octal umask (000 to 777, e.g. 002 to share the cache with the "
            "group, 077 to keep it private); the process umask applies",
        )
        return None
    return int(m.group(1), 8)


def _set_mode(fd: int, full: int) -> None:
    """`full` less CUVIL_CACHE_UMASK on what `fd` opened (nothing when unset); a
    folder's setgid bit stays."""
    mask = cache_umask()
    if mask is not None:
        keep = os.fstat(fd).st_mode & stat.S_ISGID
        os.fchmod(fd, keep | (full & ~mask))


def create_temp(folder: Path | str, prefix: str = ".") -> tuple[int, str]:
    """A new file ``FOLDER/PREFIX<random>.tmp`` opened for writing (O_EXCL, never
    through a link): its descriptor and path; mode 0666 less the mask."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
    for _ in range(100):
        path = os.path.join(folder, f"{prefix}{secrets.token_hex(8)}.tmp")
        try:
            fd = os.open(path, flags, 0o666)
        except FileExistsError:
            continue
        try:
            _set_mode(fd, 0o666)
        except OSError:
            os.close(fd)
            os.unlink(path)
            raise
        return fd, path
    raise FileExistsError(f"no free temporary name in {folder}")


def make_dir(path: Path) -> None:
    """``mkdir -p path``; `path` itself, when made here, gets 0777 less the mask (the
    folders above it are not the cache's: the umask alone decides theirs)."""
    existed = os.path.lexists(path)
    path.mkdir(parents=True, exist_ok=True)
    if existed or cache_umask() is None:
        return
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC)
    except OSError:
        return  # replaced meanwhile: the next store makes it again
    try:
        _set_mode(fd, 0o777)
    finally:
        os.close(fd)


def open_lock(path: Path) -> int:
    """The lock file opened for flock (created 0666 less the mask). Read access is
    enough for flock, so a lock another user created in a shared cache works."""
    flags = os.O_RDONLY | os.O_CREAT | os.O_NOFOLLOW | _CLOEXEC
    existed = os.path.lexists(path)
    fd = os.open(path, flags, 0o666)
    if not existed:
        try:
            _set_mode(fd, 0o666)
        except OSError:
            pass  # another user's lock: theirs to set
    return fd
