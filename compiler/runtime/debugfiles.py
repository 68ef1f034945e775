"""Splitting debug info off a build with binutils' ``objcopy`` (``$OBJCOPY``).

``split_library``: an AOT library keeps its code, ``.dynsym``, ``.symtab``, notes (the
debug key, the GNU build-id) and the debug manifest (``.cuvil.manifest``, symbol
``cuvil_manifest``) and loses its DWARF, which goes to a ``.debug`` file it names in a
``.gnu_debuglink``. ``strip_object``: a JIT object without its DWARF, for MCJIT to load
while the full object goes to the symbol store. Both handle debug builds (full DWARF),
release builds with line tables only, and builds without any DWARF.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..errors import CuvilError

__all__ = ["split_library", "strip_object", "objcopy"]


def objcopy() -> str:
    name = os.environ.get("OBJCOPY", "objcopy")
    path = shutil.which(name)
    if path is None:
        raise CuvilError(
            f"'{name}' (GNU binutils) is needed to split debug info off a build",
            hint="install binutils, or set $OBJCOPY",
        )
    return path


def _run(cmd: list[str], cwd: Path) -> None:
    try:
        subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=cwd)
    except subprocess.CalledProcessError as e:
        raise CuvilError(
            f"objcopy failed: {e.stderr.strip() or e.returncode}",
            hint=f"command: {' '.join(cmd)}",
        ) from None


def split_library(library: Path, debug: Path) -> None:
    """Move `library`'s DWARF into `debug` (same folder) and link it by name."""
    if library.parent != debug.parent:
        raise ValueError("the debug file must be next to the library")
    tool = objcopy()
    folder = library.parent
    _run([tool, "--only-keep-debug", library.name, debug.name], folder)
    _run(
        [tool, "--strip-debug", f"--add-gnu-debuglink={debug.name}", library.name],
        folder,
    )


def strip_object(data: bytes) -> bytes:
    """The ELF object `data` without its debug sections (and their relocations)."""
    with tempfile.TemporaryDirectory(prefix="cuvil-strip-") as tmp:
        src, dst = Path(tmp) / "full.o", Path(tmp) / "stripped.o"
        src.write_bytes(data)
        _run([objcopy(), "--strip-debug", src.name, dst.name], Path(tmp))
        return dst.read_bytes()
