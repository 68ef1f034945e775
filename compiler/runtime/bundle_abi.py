"""The ABI a saved library carries about itself, and the checks ``cuvil.load`` makes
with it before any of the library's code runs.

``cuvil.save`` links one read-only global ``cuvil_abi`` into model.so, in the section
``.cuvil.abi``: `HEADER` (magic ``CUVA``, version, the library's self-digest, the
compressed size) then the zlib stream of the JSON of `abi_fields` (everything
``cuvil.load`` uses: entry symbol, inputs, outputs, arena size, output tree, the params'
names, shapes, dtypes, byte sizes and the SHA-256 of params.pt, the debug key, ...).

The self-digest is the SHA-256 of the whole library file with those 32 bytes zeroed,
written after linking (and after ``split_debug``'s objcopy). ``cuvil.load`` reads the
section with pyelftools from the bytes it is about to ``dlopen``, checks the
self-digest, then requires model.json to agree with the ABI field by field and
params.pt to hold exactly the tensors the ABI names. A digest inside the file detects
any edit of the file that did not also recompute it (docs/RELIABILITY.md, "AOT
bundles": what it protects, what only a signature does).
"""

from __future__ import annotations

import hashlib
import io
import json
import struct
import zlib
from typing import Any

import llvmlite.binding as llvm
import torch

from ..codegen.target import target_triple
from ..errors import CuvilError

__all__ = [
    "ABI_SECTION",
    "ABI_FIELDS",
    "abi_fields",
    "abi_module",
    "seal_library",
    "read_abi",
    "check_metadata",
    "check_params",
    "params_layout",
]

ABI_SECTION = ".cuvil.abi"
ABI_SYMBOL = "cuvil_abi"
MAGIC, VERSION = b"CUVA", 1
HEADER = struct.Struct("<4sI32sI")  # magic, version, self-digest, compressed bytes
DIGEST_AT = 8  # offset of the self-digest in HEADER
MAX_ABI_BYTES = 64 << 20  # the decompressed JSON; a bomb is refused, not inflated
# the fields of model.json that must equal the library's own
ABI_FIELDS = (
    "format",
    "debug_key",
    "ir_sha256",
    "target",
    "options",
    "entry",
    "arena_bytes",
    "inputs",
    "outputs",
    "output_spec",
    "kernels",
    "params",
)
RESAVE = "the bundle was edited, or mixed from two saves: save the model again"


def params_layout(params: dict[str, torch.Tensor]) -> list[dict[str, Any]]:
    """name, shape, dtype and byte size of each param, in order."""
    return [
        {
            "name": name,
            "shape": list(t.shape),
            "dtype": str(t.dtype).removeprefix("torch."),
            "nbytes": t.numel() * t.element_size(),
        }
        for name, t in params.items()
    ]


def abi_fields(meta: dict[str, Any]) -> dict[str, Any]:
    """What the library vouches for: model.json's `ABI_FIELDS` (params without the
    file name, which is the bundle's business)."""
    abi = {k: meta[k] for k in ABI_FIELDS}
    abi["params"] = {k: v for k, v in meta["params"].items() if k != "file"}
    return json.loads(json.dumps(abi))  # the JSON types model.json will read back


def abi_module(abi: dict[str, Any]) -> llvm.ModuleRef:
    """An LLVM module with the constant ``cuvil_abi`` (self-digest still zero)."""
    text = json.dumps(abi, sort_keys=True, separators=(",", ":")).encode()
    packed = zlib.compress(text, 9)
    data = HEADER.pack(MAGIC, VERSION, bytes(32), len(packed)) + packed
    body = "".join(f"\\{b:02X}" for b in data)
    return llvm.parse_assembly(f"""
target triple = "{target_triple()}"
@{ABI_SYMBOL} = internal constant [{len(data)} x i8] c"{body}", section "{ABI_SECTION}", align 1
@llvm.used = appending global [1 x ptr] [ptr @{ABI_SYMBOL}], section "llvm.metadata"
""")


def _section(data: bytes, where: str) -> tuple[int, bytes]:
    """(file offset, bytes) of the ABI section of the ELF image `data`."""
    from elftools.elf.elffile import ELFFile

    try:
        section = ELFFile(io.BytesIO(data)).get_section_by_name(ABI_SECTION)
        if section is None or section.header.sh_type == "SHT_NOBITS":
            section = None
        else:
            offset, size = section.header.sh_offset, section.header.sh_size
    except Exception as e:  # noqa: BLE001 - pyelftools on a broken file raises anything
        raise CuvilError(
            f"{where} is not a readable ELF library ({type(e).__name__}: {e})",
            hint=RESAVE,
        ) from None
    if section is None or offset + size > len(data) or size < HEADER.size:
        raise CuvilError(
            f"{where} carries no Cuvil ABI (no {ABI_SECTION} section): it is not the "
            "library cuvil.save wrote; refusing to load it",
            hint=RESAVE,
        )
    return offset, data[offset : offset + size]


def _self_digest(data: bytes, at: int) -> str:
    h = hashlib.sha256()
    h.update(memoryview(data)[:at])
    h.update(bytes(32))
    h.update(memoryview(data)[at + 32 :])
    return h.hexdigest()


def seal_library(data: bytes) -> bytes:
    """`data` (a linked library) with its self-digest written into the ABI header."""
    offset, _ = _section(data, "the linked library")
    at = offset + DIGEST_AT
    digest = bytes.fromhex(_self_digest(data, at))
    return data[:at] + digest + data[at + 32 :]


def read_abi(data: bytes, where: str) -> dict[str, Any]:
    """The ABI of the library image `data`, after checking its self-digest."""
    offset, section = _section(data, where)
    magic, version, digest, packed = HEADER.unpack_from(section)
    if magic != MAGIC or version != VERSION:
        raise CuvilError(
            f"{where}: its ABI section is not version {VERSION}", hint=RESAVE
        )
    if digest.hex() != _self_digest(data, offset + DIGEST_AT):
        raise CuvilError(
            f"{where} was modified after cuvil.save wrote it (its self-digest does not "
            "match its bytes); refusing to load it",
            hint=RESAVE,
        )
    try:
        inflate = zlib.decompressobj()
        text = inflate.decompress(
            section[HEADER.size : HEADER.size + packed], MAX_ABI_BYTES
        )
        abi = json.loads(text)
        if not isinstance(abi, dict) or any(k not in abi for k in ABI_FIELDS):
            raise ValueError("fields are missing")
    except (zlib.error, ValueError, RecursionError) as e:
        raise CuvilError(
            f"{where}: its ABI section is corrupt ({e})", hint=RESAVE
        ) from None
    return abi


def _difference(mine: Any, theirs: Any, path: str) -> str | None:
    """The first path where two JSON values differ, or None."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        for key in sorted(set(mine) | set(theirs), key=str):
            if key not in mine or key not in theirs:
                return f"{path}.{key}"
            found = _difference(mine[key], theirs[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        for i, (a, b) in enumerate(zip(mine, theirs)):
            found = _difference(a, b, f"{path}[{i}]")
            if found:
                return found
        return None
    same = type(mine) is type(theirs) and mine == theirs
    return None if same else path


def _short(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def check_metadata(meta: dict[str, Any], abi: dict[str, Any], where: str) -> None:
    """Refuse model.json where it disagrees with the library's ABI."""
    for field in ABI_FIELDS:
        mine = meta.get(field)
        if field == "params" and isinstance(mine, dict):
            mine = {k: v for k, v in mine.items() if k != "file"}
        path = _difference(mine, abi[field], field)
        if path is not None:
            raise CuvilError(
                f"{where}: model.json's '{path}' does not match the ABI embedded in "
                f"the library ({_short(_at(meta, path))} in model.json, "
                f"{_short(_at(abi, path))} in the library); refusing to load it",
                hint=RESAVE,
            )


def _at(doc: Any, path: str) -> Any:
    """The value at a `_difference` path, or None where there is none."""
    node = doc
    for part in path.replace("[", ".[").split("."):
        try:
            node = node[int(part[1:-1])] if part.startswith("[") else node[part]
        except (KeyError, IndexError, TypeError, ValueError):
            return None
    return node


def check_params(params: Any, abi: dict[str, Any], where: str) -> None:
    """Refuse a params file whose tensors are not the ABI's (names, shapes, dtypes,
    byte sizes), in the ABI's order."""
    layout = abi["params"].get("layout")
    ok = isinstance(params, dict) and all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in params.items()
    )
    if not ok:
        raise CuvilError(f"{where} is not a name -> tensor mapping", hint=RESAVE)
    found = params_layout(params)
    path = _difference(found, layout, "params")
    if path is not None:
        raise CuvilError(
            f"{where} does not hold the tensors the library was built for: "
            f"'{path}' is {_short(_at({'params': found}, path))}, the library "
            f"expects {_short(_at({'params': layout}, path))}; refusing to load it",
            hint=RESAVE,
        )
