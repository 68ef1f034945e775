"""The ELF reader of the debugger commands: the compiler's own, loaded by its path.

compiler/runtime/elfinfo.py imports nothing but the standard library, but importing it
as ``cuvil.runtime.elfinfo`` would run ``cuvil/__init__`` (torch), which a debugger's
Python does not have. So it is loaded from its file: beside this package in a source
checkout, or wherever an installed ``cuvil`` package lives (found without importing it).
"""

from __future__ import annotations

import importlib.util
import struct
import sys
from pathlib import Path

__all__ = ["Elf", "Symbol", "open_elf", "symbol_file_args", "plt_stubs"]

_NAME = "cuvil_debug.debugger._elfinfo"


def _candidates():
    yield Path(__file__).resolve().parents[2] / "compiler" / "runtime" / "elfinfo.py"
    try:
        spec = importlib.util.find_spec("cuvil")  # locates, does not import
    except (ImportError, ValueError):
        spec = None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        yield Path(folder) / "runtime" / "elfinfo.py"


def _load():
    if _NAME in sys.modules:
        return sys.modules[_NAME]
    for path in _candidates():
        if path.is_file():
            spec = importlib.util.spec_from_file_location(_NAME, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[_NAME] = module  # dataclasses look their module up
            spec.loader.exec_module(module)
            return module
    raise ImportError("cannot find Cuvil's compiler/runtime/elfinfo.py")


_elfinfo = _load()
Elf = _elfinfo.Elf
Symbol = _elfinfo.Symbol
open_elf = _elfinfo.open_elf
symbol_file_args = _elfinfo.symbol_file_args


SHT_RELA, SHT_DYNSYM = 4, 11
EM_X86_64, R_X86_64_JUMP_SLOT = 62, 7


def plt_stubs(elf) -> dict[int, str]:
    """PLT entry address -> the function it jumps to (x86-64 ``.plt``/``.plt.sec``):
    a shared library calls its own exported functions through them."""
    if struct.unpack_from("<H", elf.data, 18)[0] != EM_X86_64:
        return {}
    slots = {}
    for s in elf.sections:
        if s.type != SHT_RELA or s.link >= len(elf.sections):
            continue
        dynsym = elf.sections[s.link]
        if dynsym.type != SHT_DYNSYM:
            continue
        names = _names(elf, dynsym)
        data = bytes(elf.contents(s))
        for off in range(0, len(data) - 23, 24):
            r_offset, r_info = struct.unpack_from("<QQ", data, off)
            index, kind = r_info >> 32, r_info & 0xFFFFFFFF
            if kind == R_X86_64_JUMP_SLOT and 0 < index < len(names):
                slots[r_offset] = names[index]
    out = {}
    for s in elf.sections:
        if s.name not in (".plt", ".plt.sec") or not slots:
            continue
        code, i = bytes(elf.contents(s)), 0
        while (i := code.find(b"\xff\x25", i)) >= 0 and i + 6 <= len(code):
            (disp,) = struct.unpack_from("<i", code, i + 2)  # jmp *disp(%rip)
            name = slots.get(s.addr + i + 6 + disp)
            if name:
                out[s.addr + i - i % 16] = name  # entries are 16 bytes
            i += 2
    return out


def _names(elf, table) -> list[str]:
    """Every symbol's name by its index in `table`."""
    strings = bytes(elf.contents(elf.sections[table.link]))
    data, size = bytes(elf.contents(table)), table.entsize or 24
    out = []
    for off in range(0, len(data) - size + 1, size):
        start = struct.unpack_from("<I", data, off)[0]
        end = strings.find(b"\0", start)
        out.append(
            strings[start : end if end >= 0 else None].decode("utf-8", "replace")
        )
    return out
