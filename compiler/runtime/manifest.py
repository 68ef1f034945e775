"""Reading a build's debug manifest (codegen/manifest.py) back: from an ELF file on disk
(an AOT library, a cached JIT object) with pyelftools, or from a live JIT module."""

from __future__ import annotations

import ctypes
import json
import zlib
from pathlib import Path
from typing import Any

from ..codegen.manifest import FORMAT, HEADER, MAGIC, SECTION, SYMBOL, VERSION
from ..errors import CuvilRuntimeError

__all__ = ["read_manifest", "parse_manifest", "live_manifest"]


def parse_manifest(data: bytes, where: str) -> dict[str, Any]:
    """The manifest in `data` (the section's bytes); `where` names it in errors."""
    if len(data) < HEADER.size or data[:4] != MAGIC:
        raise CuvilRuntimeError(f"{where}: no {FORMAT} document in {SECTION}")
    _, version, packed, size = HEADER.unpack_from(data)
    if version != VERSION:
        raise CuvilRuntimeError(
            f"{where}: debug manifest version {version}, this Cuvil reads version "
            f"{VERSION}",
            hint="read it with the Cuvil version that built it",
        )
    try:
        text = zlib.decompress(data[HEADER.size : HEADER.size + packed])
        if len(text) != size:
            raise ValueError(f"{len(text)} bytes, the header says {size}")
        doc = json.loads(text)
    except (zlib.error, ValueError) as e:
        raise CuvilRuntimeError(f"{where}: the debug manifest is corrupt ({e})") from e
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise CuvilRuntimeError(f"{where}: no {FORMAT} document in {SECTION}")
    if doc.get("version") != VERSION:
        raise CuvilRuntimeError(
            f"{where}: debug manifest version {doc.get('version')!r}, this Cuvil "
            f"reads version {VERSION}",
            hint="read it with the Cuvil version that built it",
        )
    return doc


def read_manifest(path: str | Path) -> dict[str, Any]:
    """The manifest of the ELF file at `path` (section ``.cuvil.manifest``)."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    with open(path, "rb") as f:
        try:
            section = ELFFile(f).get_section_by_name(SECTION)
        except ELFError as e:
            raise CuvilRuntimeError(f"{path}: not an ELF file ({e})") from e
        if section is None:
            raise CuvilRuntimeError(
                f"{path}: no {SECTION} section",
                hint="was it built by Cuvil (and not stripped of that section)?",
            )
        return parse_manifest(section.data(), str(path))


def live_manifest(jit) -> dict[str, Any]:
    """The manifest of a loaded ``JitModule``, read from its memory."""
    address = jit.engine.get_global_value_address(SYMBOL)
    if not address:
        raise CuvilRuntimeError(f"the JIT module has no {SYMBOL} symbol")
    _, _, packed, _ = HEADER.unpack(ctypes.string_at(address, HEADER.size))
    data = ctypes.string_at(address, HEADER.size + packed)
    return parse_manifest(data, f"JIT module at {address:#x}")
