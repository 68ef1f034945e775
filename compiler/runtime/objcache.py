"""A disk cache of compiled object code, so compiling the same model again skips LLVM.

The key covers everything that decides the machine code: the generated LLVM IR, the opt
level, the target triple, CPU name and features, and the LLVM and Cuvil versions (a key of
the IR alone collides across code-generation options). Objects live in
``$CUVIL_CACHE_DIR`` (default ``$XDG_CACHE_HOME/cuvil`` or ``~/.cache/cuvil``);
``CUVIL_CACHE=0`` turns the cache off. A corrupt or unreadable entry is a miss, never an
error; writes go to a temporary file renamed into place, so readers never see half a file.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import llvmlite
import llvmlite.binding as llvm

from ..codegen.target import host_cpu, target_triple
from ..version import __version__

__all__ = ["cache_key", "load_object", "store_object", "cache_dir", "enabled"]


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


def load_object(key: str) -> bytes | None:
    if not enabled():
        return None
    try:
        data = _path(key).read_bytes()
    except OSError:
        return None
    return data if data.startswith(b"\x7fELF") else None


def store_object(key: str, data: bytes) -> None:
    if not enabled():
        return
    path = _path(key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        pass  # a cache that cannot be written is only slower
