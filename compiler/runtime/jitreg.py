"""Whether a JIT object is announced to debuggers (the GDB JIT interface).

LLVM's MCJIT constructor adds the GDB registration listener to every engine, so every
object it loads is registered, debug or not (DEBUGGERS.md). Registration has a cost in
the debugger (LLDB 22: ~0.2 s per object) and shows code that has no symbols to show, so
Cuvil's policy (``JitModule``) is: an engine's objects are registered when the build has
debug info (``debug=True``) or its symbols were written to a symbol store (the object is
stripped; a debugger script finds it through the interface and loads its debug file from
the store); otherwise `unregister_listener` removes the listener from the engine before
it loads anything, as OpenShadingLanguage does.

llvmlite exports neither ``llvm::JITEventListener::createGDBRegistrationListener`` nor
``llvm::MCJIT::UnregisterJITEventListener`` nor ``__jit_debug_descriptor``; they are
local symbols of libllvmlite.so, found in its ``.symtab`` (elfinfo, ~50 ms once per
process). The library's load base is the address of an exported function minus its
symbol value. A libllvmlite.so without a symbol table leaves registration on (MCJIT's
default): `can_unregister()` says which.
"""

from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass

from llvmlite.binding import ffi

from .elfinfo import open_elf

__all__ = ["unregister_listener", "can_unregister", "registered_images", "JitImage"]

_CREATE = "_ZN4llvm16JITEventListener29createGDBRegistrationListenerEv"
_UNREGISTER = "_ZN4llvm5MCJIT26UnregisterJITEventListenerEPNS_16JITEventListenerE"
_DESCRIPTOR = "__jit_debug_descriptor"
_ANCHOR = "LLVMPY_CreateMCJITCompiler"  # exported: gives the load base


class _Entry(ctypes.Structure):
    pass


_Entry._fields_ = [
    ("next_entry", ctypes.POINTER(_Entry)),
    ("prev_entry", ctypes.POINTER(_Entry)),
    ("symfile_addr", ctypes.c_void_p),
    ("symfile_size", ctypes.c_uint64),
]


class _Descriptor(ctypes.Structure):
    _fields_ = [
        ("version", ctypes.c_uint32),
        ("action_flag", ctypes.c_uint32),
        ("relevant_entry", ctypes.POINTER(_Entry)),
        ("first_entry", ctypes.POINTER(_Entry)),
    ]


@dataclass(frozen=True)
class _Functions:
    create: object  # () -> JITEventListener*
    unregister: object  # (MCJIT* this, JITEventListener*) -> void
    descriptor: _Descriptor


@functools.cache
def _functions() -> _Functions | None:
    try:
        with open_elf(ffi.lib._name) as elf:
            found = elf.symbols(_CREATE, _UNREGISTER, _DESCRIPTOR, _ANCHOR)
    except (OSError, ValueError, AttributeError):
        return None
    if len(found) != 4:
        return None
    anchor = getattr(ffi.lib._lib_handle, _ANCHOR)
    base = ctypes.cast(anchor, ctypes.c_void_p).value - found[_ANCHOR]
    descriptor = _Descriptor.from_address(base + found[_DESCRIPTOR])
    if base % 4096 or descriptor.version != 1:  # not the library we think it is
        return None
    return _Functions(
        ctypes.CFUNCTYPE(ctypes.c_void_p)(base + found[_CREATE]),
        ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(
            base + found[_UNREGISTER]
        ),
        descriptor,
    )


def can_unregister() -> bool:
    return _functions() is not None


def unregister_listener(engine) -> bool:
    """Remove the GDB registration listener from an MCJIT `engine` (llvmlite's
    ExecutionEngine) before it loads its objects; False if this llvmlite cannot."""
    fns = _functions()
    if fns is None:
        return False
    this = ctypes.cast(engine._ptr, ctypes.c_void_p).value
    fns.unregister(this, fns.create())
    return True


@dataclass(frozen=True)
class JitImage:
    """One object registered with the GDB JIT interface: its in-memory image."""

    address: int
    size: int

    def read(self) -> bytes:
        return ctypes.string_at(self.address, self.size)


def registered_images() -> list[JitImage] | None:
    """The objects this process has registered now (None: the descriptor is not
    found); what GDB's ``maint info jit`` lists."""
    fns = _functions()
    if fns is None:
        return None
    images, entry = [], fns.descriptor.first_entry
    while entry:
        e = entry.contents
        images.append(JitImage(e.symfile_addr, e.symfile_size))
        entry = e.next_entry
    return images
