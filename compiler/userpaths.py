"""Writing where a user pointed a tool, without ever losing what was there.

Every command that writes a path it was given (``-o``, ``--snapshot-dir``, reduce's
folder, ``--dot``) goes through here:

* an existing path (a dangling symbolic link too) is refused unless `force`;
* a file is written atomically: its bytes go to a temporary file in the same folder,
  which then takes the target's name in one step (``os.link`` without `force`, so a
  file created meanwhile is not overwritten either; ``os.replace`` with it). A reader
  sees the old file or the new one, never half of one; a crash leaves no partial file;
* a symbolic link at the target is replaced, never written through, so nothing outside
  the folder the user named changes; a name written inside a folder must be a plain
  file name (no ``/``, no ``..``).

``check_file``/``check_dir`` are the cheap checks a tool runs before its slow work.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from .errors import CuvilError

__all__ = ["OutputError", "check_file", "check_dir", "write_file", "write_in_dir"]


class OutputError(CuvilError):
    """An output path could not be written (it exists, or its folder does not)."""


def _exists(target: Path, flag: str) -> OutputError:
    return OutputError(
        f"output '{target}' already exists; pass --force to overwrite it "
        f"or choose another {flag} path"
    )


def check_file(path: str | os.PathLike, *, force: bool = False, flag: str = "-o"):
    """Raise OutputError if a file could not be written at `path` now."""
    target = Path(path)
    if target.is_dir():
        raise OutputError(
            f"output '{target}' is a directory; give a file path to {flag}"
        )
    if os.path.lexists(target) and not force:
        raise _exists(target, flag)
    if not target.parent.is_dir():
        raise OutputError(
            f"cannot write '{target}': folder '{target.parent}' does not exist; "
            "create it first"
        )


def check_dir(
    path: str | os.PathLike,
    names: Iterable[str] = (),
    *,
    force: bool = False,
    flag: str = "-o",
) -> None:
    """Raise OutputError if the files `names` could not be written in folder `path`
    (created when missing): `path` is a file, or one of the names exists there."""
    folder = Path(path)
    if os.path.lexists(folder) and not folder.is_dir():
        raise OutputError(f"{flag} '{folder}' is a file; give a folder")
    for name in names:
        target = folder / _plain(name)
        if target.is_dir():
            raise OutputError(f"'{target}' is a directory, not a file")
        if os.path.lexists(target) and not force:
            raise _exists(target, flag)


def write_file(
    path: str | os.PathLike,
    data: str | bytes,
    *,
    force: bool = False,
    flag: str = "-o",
) -> Path:
    """Write `data` (text as UTF-8) to `path` atomically; never over an existing path
    without `force`, never through a symbolic link."""
    target = Path(path)
    check_file(target, force=force, flag=flag)
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    tmp = _temp_file(target, raw)
    try:
        if force:
            os.replace(tmp, target)  # replaces a link itself, not what it points to
            return target
        try:
            os.link(tmp, target)  # fails if the name exists: no race overwrites
        except FileExistsError:
            raise _exists(target, flag) from None
        except OSError:  # a file system without hard links
            if os.path.lexists(target):
                raise _exists(target, flag) from None
            os.replace(tmp, target)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)
    return target


def write_in_dir(
    folder: str | os.PathLike,
    name: str,
    data: str | bytes,
    *,
    force: bool = False,
    flag: str = "-o",
) -> Path:
    """Write file `name` (a plain name) in `folder`, created when missing."""
    directory = Path(folder)
    check_dir(directory, [name], force=force, flag=flag)
    directory.mkdir(parents=True, exist_ok=True)
    return write_file(directory / _plain(name), data, force=force, flag=flag)


def _plain(name: str) -> str:
    if not name or name in (".", "..") or "/" in name or os.sep in name:
        raise ValueError(f"{name!r} is not a plain file name")
    return name


def _temp_file(target: Path, raw: bytes) -> Path:
    """A new file beside `target` holding `raw` (mode as umask allows), synced."""
    for attempt in range(100):
        tmp = target.with_name(f".{target.name}.{os.getpid()}.{attempt}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(raw)
                f.flush()
                os.fsync(f.fileno())
        except BaseException:
            os.unlink(tmp)
            raise
        return tmp
    raise OutputError(f"cannot create a temporary file beside '{target}'")
