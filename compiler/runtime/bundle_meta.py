"""Reading a bundle's metadata and checking its files' digests and signature: the
part of ``cuvil.load`` (aot.py) that runs before the library is even copied, and
``bundle_files`` for the symbol tools. Files are read once, through bundle_fs.py (plain
names, no links), and the bytes read are the bytes checked."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path
from typing import Any

from ..errors import CuvilError
from . import signing
from .bundle_fs import MAX_METADATA, confined_name, read_file
from .debugkey import sha256
from .elfinfo import Elf

__all__ = [
    "FORMAT",
    "LIBRARY",
    "DEBUG",
    "METADATA",
    "PARAMS",
    "bundle_files",
    "read_metadata",
    "check_digest",
    "stripped_hint",
    "file_entry",
    "verify_signature",
]

FORMAT = "cuvil-aot-2"  # 2: the library embeds its ABI (bundle_abi.py)
LIBRARY, DEBUG, METADATA, PARAMS = "model.so", "model.debug", "model.json", "params.pt"


def verify_signature(root: Path, trusted_keys) -> dict[str, str] | None:
    """The signed {file: SHA-256} with `trusted_keys`, else None (no signature check)."""
    if trusted_keys is None:
        return None
    keys = signing.public_keys(trusted_keys)
    if not (root / signing.SIGNATURE).exists() and not root.is_symlink():
        raise CuvilError(
            f"'{root}' is not signed (no {signing.SIGNATURE}) and trusted_keys were "
            "given; refusing to load it",
            hint="save it with cuvil.save(..., signing_key=KEY)",
        )
    sig = read_file(root, signing.SIGNATURE, "signature", MAX_METADATA)
    return signing.verify_bundle(root, sig, keys)


def file_entry(meta: dict[str, Any], field: str, where: str) -> dict[str, Any]:
    entry = meta.get(field)
    if not isinstance(entry, dict) or "file" not in entry or "sha256" not in entry:
        raise CuvilError(
            f"the metadata file {where} is corrupt: '{field}' names no file and digest",
            hint="save the model again with cuvil.save",
        )
    return entry


def bundle_files(path: str | os.PathLike) -> tuple[dict[str, Any], Path, Path | None]:
    """(metadata, library, debug file or None) of a bundle, each checked against its
    SHA-256 in the metadata; the debug file is None when the bundle has none (not
    split, or copied without it)."""
    root = Path(path)
    meta = read_metadata(root, None)
    where = str(root / METADATA)
    lib_name = confined_name(file_entry(meta, "library", where)["file"], "library")
    data = read_file(root, lib_name, "library")
    check_digest(data, root / lib_name, meta["library"], "library", stripped_hint(meta))
    entry = meta.get("debug")
    if not isinstance(entry, dict):
        return meta, root / lib_name, None
    debug_name = confined_name(file_entry(meta, "debug", where)["file"], "debug file")
    if not (root / debug_name).exists() and not (root / debug_name).is_symlink():
        return meta, root / lib_name, None
    debug_data = read_file(root, debug_name, "debug file")
    check_digest(debug_data, root / debug_name, entry, "debug file")
    return meta, root / lib_name, root / debug_name


def read_metadata(root: Path, signed: dict[str, str] | None) -> dict[str, Any]:
    file = root / METADATA
    if not file.exists() and not file.is_symlink():
        raise CuvilError(
            f"'{root}' is not a saved Cuvil model: {file} is missing",
            hint="save one with cuvil.save(compiled, path)",
        )
    data = read_file(root, METADATA, "metadata file", MAX_METADATA)
    signing.check_signed(signed, METADATA, data, root)
    try:
        meta = json.loads(data.decode())
        required = ("format", "library", "params", "entry", "inputs", "outputs")
        if not isinstance(meta, dict) or any(k not in meta for k in required):
            raise ValueError("fields are missing")
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise CuvilError(
            f"the metadata file {file} is corrupt: {e}",
            hint="save the model again with cuvil.save",
        ) from None
    if meta["format"] != FORMAT:
        raise CuvilError(
            f"{file} has format {meta['format']!r}, expected {FORMAT!r}",
            hint="save the model again with this version of Cuvil",
        )
    return meta


def check_digest(
    data: bytes, file: Path, entry: dict, what: str, hint=lambda _data: None
) -> None:
    actual, expected = sha256(data), entry.get("sha256")
    if actual != expected:
        shown = expected[:16] if isinstance(expected, str) else repr(expected)
        raise CuvilError(
            f"the saved model's {what} {file} does not match its metadata "
            f"(SHA-256 {actual[:16]}…, expected {shown}…); refusing to load it",
            hint=hint(data)
            or "the file was modified or replaced; save the model again",
        )


def stripped_hint(meta: dict[str, Any]):
    """A hint for a library that is still the saved build (its build-id is the key)
    but was edited, as ``strip`` does."""

    def hint(data: bytes) -> str | None:
        try:
            same_build = Elf(data).build_id == meta.get("debug_key")
        except (ValueError, struct.error, IndexError):
            return None
        if not same_build:
            return None
        return (
            "it is the saved build, edited after saving (stripped?): to ship it "
            "without debug info, save with cuvil.save(compiled, path, "
            "split_debug=True) and keep model.debug in a symbol store "
            "(cuvil-debug symbols add BUNDLE)"
        )

    return hint
