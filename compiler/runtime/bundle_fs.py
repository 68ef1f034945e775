"""The file system side of a bundle: names confined to it, reads that follow no link,
private copies of a library to ``dlopen``, and saving by staging + rename.

Reading: a name from model.json must be one plain file name in the bundle (no ``/``,
no ``..``, not absolute); the file is opened with ``O_NOFOLLOW`` and must be a regular
file, so a symlink in a bundle is refused, wherever it points. The bytes read are the
bytes checked and used (no second open between check and use).

Loading a library: its bytes go to a new file (``O_EXCL``) in a new folder with a unique
``mkdtemp`` name inside a private folder (mode 0700, made once per process, removed at
exit), and ``dlopen`` gets that copy, after the caller checked the copy's bytes. A file replaced
in the bundle after the check is never the one loaded, and a second bundle saved at the
same path gets a new name, so the dynamic loader cannot hand back an old handle.

Saving: the bundle is written into a fresh folder beside the target and renamed into
place; an existing target must be a bundle (or empty) folder and not a symlink, and is
swapped out whole (``renameat2(RENAME_EXCHANGE)`` where the kernel has it), so nothing
is ever written through a link and a user's unrelated folder is never touched.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import shutil
import stat
import tempfile
from pathlib import Path

from ..errors import CuvilError

__all__ = [
    "BUNDLE_NAMES",
    "confined_name",
    "read_file",
    "private_copy",
    "drop_private_copy",
    "link_beside",
    "check_target",
    "staging_dir",
    "install",
]

# every name cuvil.save writes into a bundle
BUNDLE_NAMES = frozenset(
    {
        "model.so",
        "model.debug",
        "model.json",
        "params.pt",
        "model.so-gdb.py",
        "model.sig",
    }
)
MAX_READ = 1 << 34  # 16 GiB: more is not a bundle file but a way to exhaust memory
MAX_METADATA = 64 << 20  # model.json and model.sig: a few KB to a few MB in practice
_PRIVATE: dict[int, Path] = {}  # pid -> this process's private folder


def confined_name(value: object, what: str) -> str:
    """`value` if it names one file directly in the bundle, else a CuvilError."""
    ok = (
        isinstance(value, str)
        and value not in ("", ".", "..")
        and "/" not in value
        and "\\" not in value
        and "\0" not in value
    )
    if not ok:
        raise CuvilError(
            f"model.json names the {what} {value!r}: a bundle's files must be plain "
            "names inside it (no '/', no '..', no absolute path); refusing to load it",
            hint="save the model again with cuvil.save",
        )
    return value


def read_file(root: Path, name: str, what: str, limit: int = MAX_READ) -> bytes:
    """The bytes of `root`/`name`, a regular file (a symlink is refused) of at most
    `limit` bytes."""
    path = root / name
    try:
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK  # a FIFO must not block
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise CuvilError(f"the saved model's {what} {path} is missing") from None
    except OSError as e:
        if os.path.islink(path):
            raise CuvilError(
                f"the saved model's {what} {path} is a symbolic link; a bundle's files "
                "must be regular files in it, so links are refused",
                hint="copy the bundle with its files, not links (cp -L)",
            ) from None
        raise CuvilError(f"cannot read the saved model's {what} {path}: {e}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise CuvilError(f"the saved model's {what} {path} is not a regular file")
    if info.st_size > limit:
        os.close(fd)
        raise CuvilError(
            f"the saved model's {what} {path} is too large ({info.st_size} bytes, "
            f"the limit is {limit})"
        )
    with os.fdopen(fd, "rb") as f:
        return f.read()


def _private_dir() -> Path:
    pid = os.getpid()
    if pid not in _PRIVATE:
        folder = Path(tempfile.mkdtemp(prefix="cuvil-load-"))
        _PRIVATE[pid] = folder
        atexit.register(_remove_private, pid)
    return _PRIVATE[pid]


def _remove_private(pid: int) -> None:
    if os.getpid() == pid and pid in _PRIVATE:
        shutil.rmtree(_PRIVATE.pop(pid), ignore_errors=True)


def private_copy(data: bytes, name: str) -> tuple[Path, bytes]:
    """(path, bytes read back) of a new file `name` holding `data`, alone in a new
    folder (a unique ``mkdtemp`` name) of the private folder."""
    folder = Path(tempfile.mkdtemp(prefix="load-", dir=_private_dir()))
    path = folder / name
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o700)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(path, 0o500)
    with open(path, "rb") as f:
        return path, f.read()


def drop_private_copy(path: Path) -> None:
    shutil.rmtree(path.parent, ignore_errors=True)


def link_beside(copy: Path, original: Path) -> None:
    """A link beside the private `copy` to the regular file `original` (GDB looks for
    ``model.so-gdb.py`` beside the library it loaded, and runs it only where the user
    trusts the link's real place: the bundle)."""
    if original.is_file() and not original.is_symlink():
        os.symlink(original.resolve(), copy.parent / original.name)


def check_target(out: Path, overwrite: bool) -> None:
    """Refuse a target cuvil.save must not replace."""
    if out.is_symlink():
        raise CuvilError(
            f"'{out}' is a symbolic link; cuvil.save writes no bundle through a link",
            hint="choose a new path, or save to the link's target itself",
        )
    if not out.exists():
        return
    if not overwrite:
        raise CuvilError(
            f"'{out}' already exists", hint="choose a new path or pass overwrite=True"
        )
    if not out.is_dir():
        raise CuvilError(
            f"'{out}' is a file; a saved model is a directory", hint="choose a new path"
        )
    foreign = sorted(p.name for p in out.iterdir() if p.name not in BUNDLE_NAMES)
    if foreign:
        raise CuvilError(
            f"'{out}' is not a saved Cuvil model (it holds {foreign[0]!r}); "
            "overwrite=True replaces only a bundle",
            hint="choose a new path, or move that folder away yourself",
        )


def staging_dir(out: Path) -> Path:
    """A fresh folder beside `out` to write the new bundle into."""
    out.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{out.name}.cuvil-save-", dir=out.parent))


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux renameat2); False where unavailable."""
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    rc = fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    return rc == 0


def install(stage: Path, out: Path, overwrite: bool) -> None:
    """Move the finished bundle `stage` to `out`, replacing an old bundle whole."""
    check_target(out, overwrite)  # again: the slow build gave time for a swap
    if not out.exists():
        os.rename(stage, out)
        return
    if _exchange(stage, out):
        shutil.rmtree(stage)  # now the old bundle (rmtree follows no link)
        return
    aside = Path(tempfile.mkdtemp(prefix=f".{out.name}.cuvil-old-", dir=out.parent))
    os.rename(out, aside / "old")
    os.rename(stage, out)
    shutil.rmtree(aside)
