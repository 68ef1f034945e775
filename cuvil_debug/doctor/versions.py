"""The doctor's checks of this Python: versions of Python, torch, llvmlite (and its
LLVM), Cuvil; the host CPU LLVM targets; the object cache's folder."""

from __future__ import annotations

import os
import platform
import sys
import tempfile
from importlib import metadata

from .core import FAIL, OK, WARN, Check

__all__ = [
    "python",
    "torch_version",
    "llvmlite_version",
    "cuvil_version",
    "cpu",
    "cache",
]

MIN_PYTHON = (3, 11)
# the CPU features whose kernels LLVM picks (names as in LLVM's feature string)
NOTABLE = (
    "sse4.2",
    "avx",
    "avx2",
    "fma",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512vnni",
    "avx512bf16",
    "avx512fp16",
    "avxvnni",
    "amx-tile",
    "amx-int8",
    "amx-bf16",
)


def python(_timeout: float) -> Check:
    version = platform.python_version()
    details = {"version": version, "executable": sys.executable}
    if sys.version_info[:2] < MIN_PYTHON:
        want = ".".join(map(str, MIN_PYTHON))
        return Check(
            "python",
            "",
            FAIL,
            f"Python {version}",
            f"Cuvil needs Python >= {want}: use a newer interpreter",
            details,
        )
    return Check("python", "", OK, f"Python {version} ({sys.executable})", "", details)


def _pinned(name: str) -> str | None:
    """The version Cuvil's own requirement pins `name` to (`torch==2.13.0`)."""
    try:
        requires = metadata.requires("cuvil") or []
    except metadata.PackageNotFoundError:
        return None
    for req in requires:
        head = req.split(";")[0].strip()
        if head.startswith(f"{name}=="):
            return head.split("==", 1)[1]
    return None


def torch_version(_timeout: float) -> Check:
    try:
        import torch
    except ImportError as e:
        return Check("torch", "", FAIL, f"torch does not import: {e}", _INSTALL, {})
    details = {"version": torch.__version__, "path": os.path.dirname(torch.__file__)}
    pinned = _pinned("torch")
    details["required"] = pinned
    if pinned and torch.__version__.split("+")[0] != pinned:
        return Check(
            "torch",
            "",
            WARN,
            f"torch {torch.__version__}, Cuvil is tested with {pinned}",
            f"pip install torch=={pinned} (CPU build) for the tested combination",
            details,
        )
    return Check("torch", "", OK, f"torch {torch.__version__}", "", details)


_INSTALL = "pip install -e '.[dev]' in the Cuvil checkout (or pip install cuvil)"


def llvmlite_version(_timeout: float) -> Check:
    try:
        import llvmlite
        import llvmlite.binding as llvm
    except ImportError as e:
        return Check("llvmlite", "", FAIL, f"llvmlite does not import: {e}", _INSTALL)
    llvm_version = ".".join(map(str, llvm.llvm_version_info))
    details = {"version": llvmlite.__version__, "llvm_version": llvm_version}
    summary = f"llvmlite {llvmlite.__version__}, LLVM {llvm_version}"
    return Check("llvmlite", "", OK, summary, "", details)


def cuvil_version(_timeout: float) -> Check:
    try:
        import cuvil
    except Exception as e:  # a broken install raises anything at import
        return Check("cuvil", "", FAIL, f"cuvil does not import: {e}", _INSTALL)
    details = {"version": cuvil.__version__, "path": os.path.dirname(cuvil.__file__)}
    return Check(
        "cuvil", "", OK, f"Cuvil {cuvil.__version__} ({details['path']})", "", details
    )


def cpu(_timeout: float) -> Check:
    from cuvil.codegen.target import host_cpu, target_triple

    name, features = host_cpu()
    enabled = {f[1:] for f in features.split(",") if f.startswith("+")}
    notable = [f for f in NOTABLE if f in enabled]
    details = {
        "triple": target_triple(),
        "cpu": name,
        "notable_features": notable,
        "features": features,
    }
    summary = f"{name} ({target_triple()}): {' '.join(notable) or 'no SIMD extensions'}"
    if "avx2" not in enabled and platform.machine() in ("x86_64", "AMD64"):
        return Check(
            "cpu",
            "",
            WARN,
            summary,
            "no AVX2: kernels run, but slowly (vectorized code needs AVX2 or better)",
            details,
        )
    return Check("cpu", "", OK, summary, "", details)


def cache(_timeout: float) -> Check:
    from cuvil.runtime.objcache import cache_dir, enabled

    folder = cache_dir()
    details = {"dir": str(folder), "enabled": enabled()}
    if not enabled():
        return Check(
            "cache", "", OK, f"off (CUVIL_CACHE=0); folder {folder}", "", details
        )
    problem = _unwritable(folder)
    if problem:
        return Check(
            "cache",
            "",
            FAIL,
            f"{folder} is not writable: {problem}",
            "point CUVIL_CACHE_DIR at a writable folder, fix the folder's "
            "permissions, or turn the cache off with CUVIL_CACHE=0",
            details,
        )
    return Check("cache", "", OK, f"{folder} is writable", "", details)


def _unwritable(folder) -> str | None:
    """Why a file cannot be created in `folder` (made if absent), or None."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".doctor-"):
            pass
    except OSError as e:
        return e.strerror or str(e)
    return None
