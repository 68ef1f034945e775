"""Traceback frames as triage records them: file, line, function, and whose code
it is (the user's, Cuvil's, or an installed package's)."""

from __future__ import annotations

import functools
import os
import sysconfig
from pathlib import Path

_LIB_DIRS = tuple(
    str(Path(p).resolve())
    for p in {
        sysconfig.get_paths()["stdlib"],
        sysconfig.get_paths()["purelib"],
        sysconfig.get_paths()["platlib"],
    }
)


def _frame(file: str, line: int | None, func: str) -> dict:
    return {
        "file": _resolve(file),
        "line": line or 0,
        "func": func,
        "user": is_user_file(file),
        "cuvil": _in_cuvil(file),
        "package": package_of(file),
    }


def package_of(file: str) -> str | None:
    """The installed distribution's top-level package a file belongs to (`torch`,
    `transformers`, `torchvision`), None for user code, the stdlib and Cuvil."""
    if file.startswith("<"):
        return None
    path = _resolve(file)
    for root in _LIB_DIRS:
        if path.startswith(root + os.sep) and "site-packages" in root:
            rel = path[len(root) + 1 :]  # a package's folder or a top-level module
            return rel.split(os.sep, 1)[0].removesuffix(".py")
    if "/site-packages/" in path:
        top = path.split("/site-packages/", 1)[1].split("/", 1)[0]
        return top.removesuffix(".py")
    return None


def _resolve(file: str) -> str:
    return file if file.startswith("<") else str(Path(file).resolve())


def is_user_file(file: str) -> bool:
    """True for the model author's code: not the stdlib, site-packages or Cuvil."""
    if file.startswith("<") or not file.endswith(".py"):
        return False
    path = _resolve(file)
    return (
        not path.startswith(_LIB_DIRS)
        and not _in_cuvil(path)
        and "/site-packages/" not in path
    )


def _in_cuvil(file: str) -> bool:
    return not file.startswith("<") and _resolve(file).startswith(_cuvil_dirs())


@functools.cache
def _cuvil_dirs() -> tuple[str, ...]:
    import cuvil
    import cuvil_debug

    return tuple(
        str(Path(m.__file__).resolve().parent) + os.sep for m in (cuvil, cuvil_debug)
    )
