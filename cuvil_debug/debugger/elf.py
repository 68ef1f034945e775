"""A minimal reader of 64-bit little-endian ELF files and in-memory ELF images.

Enough for the debugger scripts: section headers (with the addresses a JIT loader patched
in), the symbol table, notes (the GNU build-id, Cuvil's debug key) and a section's bytes.
It reads through a ``read(offset, size) -> bytes`` callable, so a file on disk is read
piecewise (a 500 MB library costs its headers) and an image in a debuggee's memory the same
way. pyelftools is not available inside a debugger's Python; this is stdlib only.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Elf", "ElfError", "Section", "Symbol", "open_file"]

Reader = Callable[[int, int], bytes]

SHT_SYMTAB, SHT_RELA, SHT_NOTE = 2, 4, 7
SHN_UNDEF, SHN_ABS = 0, 0xFFF1
ET_REL = 1
NT_GNU_BUILD_ID = 3


class ElfError(ValueError):
    """Not an ELF image this reader understands (or a truncated one)."""


@dataclass(frozen=True)
class Section:
    index: int
    name: str
    type: int
    flags: int
    addr: int
    offset: int
    size: int
    link: int
    info: int
    entsize: int


@dataclass(frozen=True)
class Symbol:
    name: str
    value: int
    size: int
    shndx: int
    kind: int  # STT_*: 1 object, 2 function


class Elf:
    """One ELF image read through `read`; ``relocatable`` for a ``.o`` (JIT objects)."""

    def __init__(self, read: Reader) -> None:
        self._read = read
        head = read(0, 64)
        if len(head) < 64 or head[:4] != b"\x7fELF":
            raise ElfError("not an ELF image")
        if head[4] != 2 or head[5] != 1:
            raise ElfError("only 64-bit little-endian ELF is supported")
        self.type = struct.unpack_from("<H", head, 16)[0]
        shoff = struct.unpack_from("<Q", head, 40)[0]
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", head, 58)
        if shoff == 0 or shnum == 0 or shnum > 65000 or shentsize < 64:
            raise ElfError("the ELF image has no section headers")
        table = read(shoff, shnum * shentsize)
        if len(table) < shnum * shentsize:
            raise ElfError("the ELF section headers are truncated")
        raw = [
            struct.unpack_from("<IIQQQQIIQQ", table, i * shentsize)
            for i in range(shnum)
        ]
        names = (
            self._bytes(raw[shstrndx][4], raw[shstrndx][5]) if shstrndx < shnum else b""
        )
        self.sections = [
            Section(i, _cstr(names, r[0]), *r[1:7], r[7], r[9])
            for i, r in enumerate(raw)
        ]
        self._symbols: list[Symbol] | None = None

    @property
    def relocatable(self) -> bool:
        return self.type == ET_REL

    def _bytes(self, offset: int, size: int) -> bytes:
        data = self._read(offset, size)
        if len(data) < size:
            raise ElfError("the ELF image is truncated")
        return data

    def section(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)

    def data(self, section: Section) -> bytes:
        return self._bytes(section.offset, section.size)

    def symbols(self) -> list[Symbol]:
        """The ``.symtab`` (or, stripped, ``.dynsym``) symbols that are defined."""
        if self._symbols is None:
            table = self.section(".symtab") or self.section(".dynsym")
            self._symbols = [] if table is None else self._read_symbols(table)
        return self._symbols

    def _read_symbols(self, table: Section) -> list[Symbol]:
        strings = self.data(self.sections[table.link])
        data, size = self.data(table), table.entsize or 24
        out = []
        for off in range(0, len(data) - size + 1, size):
            name, info, _, shndx, value, sz = struct.unpack_from("<IBBHQQ", data, off)
            if shndx != SHN_UNDEF and name:
                out.append(Symbol(_cstr(strings, name), value, sz, shndx, info & 0xF))
        return out

    def relocations(self, target: int) -> list[tuple[int, str, int]]:
        """(offset in section `target`, symbol name, type) of its RELA relocations."""
        out = []
        for s in self.sections:
            if s.type != SHT_RELA or s.info != target or s.link >= len(self.sections):
                continue
            table = self.sections[s.link]
            names = self._names(table)
            data = self.data(s)
            for off in range(0, len(data) - 23, 24):
                r_offset, r_info = struct.unpack_from("<QQ", data, off)
                index, kind = r_info >> 32, r_info & 0xFFFFFFFF
                if 0 < index < len(names):
                    out.append((r_offset, names[index], kind))
        return out

    def _names(self, table: Section) -> list[str]:
        """Every symbol's name by its index in `table`."""
        strings = self.data(self.sections[table.link])
        data, size = self.data(table), table.entsize or 24
        return [
            _cstr(strings, struct.unpack_from("<I", data, off)[0])
            for off in range(0, len(data) - size + 1, size)
        ]

    def address(self, sym: Symbol) -> int:
        """Where `sym` is in the image's address space: a ``.o``'s values are offsets in
        their section (whose ``sh_addr`` a JIT loader patched to the load address)."""
        if self.relocatable and sym.shndx < len(self.sections) and sym.shndx != SHN_ABS:
            return self.sections[sym.shndx].addr + sym.value
        return sym.value

    def notes(self) -> list[tuple[bytes, int, bytes]]:
        """(name, type, desc) of every note in every SHT_NOTE section."""
        out = []
        for s in self.sections:
            if s.type != SHT_NOTE:
                continue
            data, off = self.data(s), 0
            while off + 12 <= len(data):
                namesz, descsz, ntype = struct.unpack_from("<III", data, off)
                off += 12
                name = data[off : off + namesz].rstrip(b"\0")
                off += (namesz + 3) & ~3
                out.append((name, ntype, data[off : off + descsz]))
                off += (descsz + 3) & ~3
        return out

    def build_id(self) -> str | None:
        """The GNU build-id, else Cuvil's debug-key note (a JIT object has no linker)."""
        notes = self.notes()
        for name, ntype, desc in notes:
            if name == b"GNU" and ntype == NT_GNU_BUILD_ID:
                return desc.hex()
        for name, _, desc in notes:
            if name == b"cuvil":
                return desc.hex()
        return None


def open_file(path: str) -> Elf:
    """An `Elf` over a file, read piecewise (the file stays closed between reads)."""

    def read(offset: int, size: int) -> bytes:
        with open(path, "rb") as f:
            f.seek(offset)
            return f.read(size)

    return Elf(read)


def _cstr(table: bytes, offset: int) -> str:
    end = table.find(b"\0", offset)
    return table[offset : end if end >= 0 else len(table)].decode("utf-8", "replace")
