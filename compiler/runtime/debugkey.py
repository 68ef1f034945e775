"""The debug key of a build and the ELF notes that carry it.

The debug key is a SHA-256-derived fingerprint of everything that decides the machine
code: LLVM IR, target triple, CPU, features, how the code is generated (an AOT library
is PIC, a JIT object is not), options and the Cuvil and LLVM versions (the IR alone
collides; DEBUGGERS.md trap 5). ``keep_symbols`` is left out: where the symbols go does
not change the code, so a build with and without it has one key.

Every build carries its key in an ELF note ``.note.cuvil.debugkey`` (owner ``cuvil``,
type 1), which survives ``strip``. An AOT library's GNU build-id is the key too (linked
with ``-Wl,--build-id=0x<key>``); a JIT object, which no linker sees, also carries a
``.note.gnu.build-id`` note of its own, so debuggers and the symbol store see the key as
its build-id.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import llvmlite
import llvmlite.binding as llvm
import torch

from ..codegen.target import host_cpu, target_triple
from ..options import CompileOptions
from ..version import __version__

__all__ = [
    "debug_key",
    "key_options",
    "note_module",
    "versions",
    "target",
    "NOTE_SECTION",
    "KEY_BYTES",
]

NOTE_SECTION = ".note.cuvil.debugkey"
BUILD_ID_SECTION = ".note.gnu.build-id"
KEY_BYTES = 20  # the usual GNU build-id length
_NOTES = {  # section -> (owner, type)
    NOTE_SECTION: (b"cuvil", 1),
    BUILD_ID_SECTION: (b"GNU", 3),  # NT_GNU_BUILD_ID
}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def versions() -> dict[str, str]:
    return {
        "cuvil": __version__,
        "llvm": ".".join(map(str, llvm.llvm_version_info)),
        "llvmlite": llvmlite.__version__,
        "torch": torch.__version__,
    }


def target(code: str | None = None) -> dict[str, str]:
    """The host target; `code` names how the code is generated when it is not an AOT
    library (``"mcjit"``: non-PIC JIT code)."""
    cpu, features = host_cpu()
    found = {"triple": target_triple(), "cpu": cpu, "features": features}
    return {**found, "code": code} if code else found


def key_options(options: CompileOptions) -> dict[str, Any]:
    """The flat options that go into the key: all but ``keep_symbols``."""
    flat = options.to_dict()
    flat.pop("keep_symbols", None)
    return flat


def debug_key(llvm_ir: str, target: dict, options: dict, versions: dict) -> str:
    """Hex fingerprint of what decides the machine code (not torch's version)."""
    fields = {
        "ir": sha256(llvm_ir.encode()),
        "target": target,
        "options": options,
        "cuvil": versions["cuvil"],
        "llvm": versions["llvm"],
    }
    blob = json.dumps(fields, sort_keys=True).encode()
    return sha256(blob)[: 2 * KEY_BYTES]


def _note(section: str, key: str) -> tuple[str, str]:
    """The IR of one note global (its text, its name): namesz, descsz, type, the
    owner NUL-terminated and padded to 4 bytes, the key's bytes."""
    owner, ntype = _NOTES[section]
    size = (len(owner) + 1 + 3) & ~3
    name = "".join(f"\\{b:02X}" for b in owner.ljust(size, b"\0"))
    desc = "".join(f"\\{b:02X}" for b in bytes.fromhex(key))
    glob = "cuvil_debugkey" if section == NOTE_SECTION else "cuvil_build_id"
    text = f"""
@{glob} = internal constant {{ i32, i32, i32, [{size} x i8], [{KEY_BYTES} x i8] }}
  {{ i32 {len(owner) + 1}, i32 {KEY_BYTES}, i32 {ntype},
     [{size} x i8] c"{name}", [{KEY_BYTES} x i8] c"{desc}" }},
  section "{section}", align 4
"""
    return text, glob


def note_module(key: str, build_id: bool = False) -> llvm.ModuleRef:
    """An LLVM module holding the note ``cuvil`` / type 1 / desc = key bytes, and with
    `build_id` a GNU build-id note (for JIT objects; a linker writes the AOT one)."""
    sections = [NOTE_SECTION, *([BUILD_ID_SECTION] if build_id else [])]
    notes = [_note(s, key) for s in sections]
    used = ", ".join(f"ptr @{glob}" for _, glob in notes)
    text = f"""
target triple = "{target_triple()}"
{"".join(text for text, _ in notes)}
@llvm.used = appending global [{len(notes)} x ptr] [{used}], section "llvm.metadata"
"""
    return llvm.parse_assembly(text)
