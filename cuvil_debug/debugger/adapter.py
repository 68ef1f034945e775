"""What a debugger script provides to a `Session`: the `Adapter` protocol, and the ABI.

Everything here is the debugger's job and nothing else: read memory, read a register of
the innermost frame, look a symbol up, list loaded libraries and frames, set and delete an
internal breakpoint (the script calls ``Session.hit(handle)`` when one is hit and stops
only if it says so), and load a debug file.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["Adapter", "FrameInfo", "CommandError", "entry_arguments"]


class CommandError(Exception):
    """A user-facing failure of a ``cuvil`` command: printed as one line."""


@dataclass(frozen=True)
class FrameInfo:
    """One frame of the selected thread, innermost first."""

    pc: int
    function: str | None = None
    file: str | None = None
    line: int | None = None
    module: str | None = None  # the shared object or JIT image it is in


class Adapter(Protocol):
    def arch(self) -> str:
        """``x86_64`` or ``aarch64``."""

    def read(self, addr: int, size: int) -> bytes:
        """The debuggee's memory; raises on an unreadable range."""

    def symbol_address(self, name: str) -> int | None:
        """A global symbol's address in any loaded object (code or data)."""

    def libraries(self) -> list[tuple[str, int]]:
        """Loaded shared objects: (path, load base)."""

    def frames(self) -> list[FrameInfo]:
        """The selected thread's frames, innermost first; [] when nothing runs."""

    def register(self, name: str) -> int:
        """A register of the innermost frame (``rdi``, ``rsp``, ``x0``, ``sp``...)."""

    def frame_arguments(self, index: int) -> list[tuple[str, int]]:
        """Frame `index`'s pointer arguments by debug info, in order; [] without it."""

    def set_breakpoint(self, addr: int) -> Any:
        """An internal breakpoint at `addr`; returns a handle for `Session.hit`."""

    def delete_breakpoint(self, handle: Any) -> None: ...

    def add_symbols(self, path: str, sections: dict[str, int], base: int | None) -> str:
        """Load the debug file `path`: a JIT object's, placed at `sections`
        (name -> address), or a library's, at load `base`. Returns what it did."""

    def python_backtrace(self) -> str | None:
        """The Python frames (CPython's debugger helpers), None where they don't load."""


_ARG_REGISTERS = {
    "x86_64": ("rdi", "rsi", "rdx", "rcx", "r8", "r9"),
    "aarch64": tuple(f"x{i}" for i in range(8)),
}


def entry_arguments(adapter: Adapter, count: int) -> list[int]:
    """The first `count` pointer arguments of the innermost frame, read by the C ABI:
    valid only at a function's first instruction (where Cuvil's breakpoints are)."""
    arch = adapter.arch()
    regs = _ARG_REGISTERS.get(arch)
    if regs is None:
        raise CommandError(f"reading arguments on {arch} is not supported")
    values = [adapter.register(r) for r in regs[:count]]
    if count > len(regs):
        sp = adapter.register("rsp" if arch == "x86_64" else "sp")
        skip = 8 if arch == "x86_64" else 0  # the return address
        raw = adapter.read(sp + skip, 8 * (count - len(regs)))
        values += list(struct.unpack(f"<{count - len(regs)}Q", raw))
    return values
