"""A small ELF reader on ``struct`` alone: sections, notes, build-ids, symbols.

The symbol store, the JIT's registration switch, the debugger commands and the tests
read ELF files with it: an AOT library, its ``.debug`` file, a JIT object on disk or its
image in memory (as registered with the GDB JIT interface, read from a live process or a
core dump). It imports nothing but the standard library, so a debugger's Python (which
has no pyelftools, numpy or torch) loads it by path (cuvil_debug/debugger/elf.py);
`symbol_file_args` is what a GDB/LLDB script needs to load a JIT object's debug file
from the store::

    image = <the bytes at jit_code_entry.symfile_addr, symfile_size>
    key = image_key(image)                     # its debug key (= build-id)
    path = STORE / ".build-id" / key[:2] / (key[2:] + ".debug")
    args = symbol_file_args(image)             # [(".text", 0x7f..), (".rodata", ..)]
    gdb:  add-symbol-file PATH -s .text 0x7f.. -s .rodata 0x7f..
    lldb: target modules add PATH; target modules load --file PATH .text 0x7f.. ...

Only 64-bit little-endian ELF (x86-64, AArch64) is read; anything else is a ValueError.
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Elf",
    "Section",
    "Symbol",
    "open_elf",
    "image_key",
    "symbol_file_args",
    "CUVIL_NOTE",
    "GNU_BUILD_ID",
]

SHT_NOBITS, SHT_NOTE, SHT_SYMTAB, SHT_DYNSYM, SHT_RELA = 8, 7, 2, 11, 4
SHN_UNDEF, SHN_ABS = 0, 0xFFF1
SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4
ET_NAMES = {1: "rel", 2: "exec", 3: "dyn", 4: "core"}
CUVIL_NOTE = (b"cuvil", 1)  # owner, type of the .note.cuvil.debugkey note
GNU_BUILD_ID = (b"GNU", 3)  # NT_GNU_BUILD_ID
_DWARF = (".debug_info", ".debug_line")


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
    """A defined, named symbol: its value (a ``.o``'s: an offset in section `shndx`)."""

    name: str
    value: int
    size: int
    shndx: int
    kind: int  # STT_*: 1 object, 2 function


class Elf:
    """The sections, notes and symbols of an ELF image in `data` (bytes, mmap, ...)."""

    def __init__(self, data) -> None:
        self.data = memoryview(data)
        if bytes(self.data[:4]) != b"\x7fELF":
            raise ValueError("not an ELF file")
        if self.data[4] != 2 or self.data[5] != 1:
            raise ValueError("not a 64-bit little-endian ELF file")
        etype = struct.unpack_from("<H", self.data, 16)[0]
        self.type = ET_NAMES.get(etype, str(etype))
        shoff = struct.unpack_from("<Q", self.data, 0x28)[0]
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", self.data, 0x3A)
        if shoff == 0 or shoff + shnum * shentsize > len(self.data):
            raise ValueError("no section headers (or a truncated file)")
        raw = [
            struct.unpack_from("<IIQQQQIIQQ", self.data, shoff + i * shentsize)
            for i in range(shnum)
        ]
        names = raw[shstrndx] if shstrndx < shnum else None
        self.sections = [
            Section(i, self._name(names, r[0]), *r[1:8], r[9])
            for i, r in enumerate(raw)
        ]

    def _name(self, names, offset: int) -> str:
        if names is None:
            return ""
        start = names[4] + offset
        end = bytes(self.data[start : start + 256]).find(b"\0")
        return bytes(self.data[start : start + max(end, 0)]).decode("utf-8", "replace")

    def section(self, name: str) -> Section | None:
        return next((s for s in self.sections if s.name == name), None)

    def contents(self, section: Section) -> memoryview:
        if section.type == SHT_NOBITS:
            return self.data[0:0]
        return self.data[section.offset : section.offset + section.size]

    def notes(self) -> Iterator[tuple[str, bytes, int, bytes]]:
        """(section name, owner, type, desc) of every note in an SHT_NOTE section."""
        for s in self.sections:
            if s.type != SHT_NOTE:
                continue
            data, pos = self.contents(s), 0
            while pos + 12 <= len(data):
                namesz, descsz, ntype = struct.unpack_from("<III", data, pos)
                name_at = pos + 12
                desc_at = name_at + _align4(namesz)
                owner = bytes(data[name_at : name_at + namesz]).rstrip(b"\0")
                yield s.name, owner, ntype, bytes(data[desc_at : desc_at + descsz])
                pos = desc_at + _align4(descsz)

    def note(self, owner_type: tuple[bytes, int]) -> str | None:
        """The hex desc of the first note with this (owner, type)."""
        for _, owner, ntype, desc in self.notes():
            if (owner, ntype) == owner_type and desc:
                return desc.hex()
        return None

    @property
    def build_id(self) -> str | None:
        return self.note(GNU_BUILD_ID)

    @property
    def cuvil_key(self) -> str | None:
        return self.note(CUVIL_NOTE)

    @property
    def key(self) -> str | None:
        """The debug key: Cuvil's note, else the GNU build-id."""
        return self.cuvil_key or self.build_id

    def has_dwarf(self) -> bool:
        """True if DWARF (line tables or more) is in the file itself."""
        return any(
            s.name in _DWARF and s.type != SHT_NOBITS and s.size > 0
            for s in self.sections
        )

    def has_code(self) -> bool:
        """True if machine code is in the file (not in a ``.debug`` file's)."""
        return any(
            s.flags & SHF_EXECINSTR and s.type != SHT_NOBITS and s.size > 0
            for s in self.sections
        )

    @property
    def relocatable(self) -> bool:
        return self.type == "rel"

    def symbol_table(self) -> list[Symbol]:
        """Every defined, named symbol of ``.symtab`` (stripped: ``.dynsym``)."""
        table = next((s for s in self.sections if s.type == SHT_SYMTAB), None)
        table = table or next((s for s in self.sections if s.type == SHT_DYNSYM), None)
        if table is None:
            return []
        strings = bytes(self.contents(self.sections[table.link]))
        out = []
        for name, info, shndx, value, size in self._entries(table):
            if shndx != SHN_UNDEF and name:
                out.append(Symbol(_cstr(strings, name), value, size, shndx, info & 0xF))
        return out

    def _entries(self, table: Section):
        data, size = bytes(self.contents(table)), table.entsize or 24
        for off in range(0, len(data) - size + 1, size):
            name, info, _, shndx, value, sz = struct.unpack_from("<IBBHQQ", data, off)
            yield name, info, shndx, value, sz

    def address(self, sym: Symbol) -> int:
        """Where `sym` is in the image: a ``.o``'s values are offsets in their section,
        whose ``sh_addr`` a JIT loader patched to its load address."""
        if self.relocatable and sym.shndx < len(self.sections) and sym.shndx != SHN_ABS:
            return self.sections[sym.shndx].addr + sym.value
        return sym.value

    def relocations(self, target: int) -> list[tuple[int, str, int]]:
        """(offset in section `target`, symbol name, type) of its RELA relocations."""
        out = []
        for s in self.sections:
            if s.type != SHT_RELA or s.info != target or s.link >= len(self.sections):
                continue
            table = self.sections[s.link]
            strings = bytes(self.contents(self.sections[table.link]))
            names = [_cstr(strings, e[0]) for e in self._entries(table)]
            data = bytes(self.contents(s))
            for off in range(0, len(data) - 23, 24):
                r_offset, r_info = struct.unpack_from("<QQ", data, off)
                index, kind = r_info >> 32, r_info & 0xFFFFFFFF
                if 0 < index < len(names):
                    out.append((r_offset, names[index], kind))
        return out

    def symbols(self, *names: str) -> dict[str, int]:
        """The values of the symbols `names` found in .symtab, else .dynsym."""
        found: dict[str, int] = {}
        for kind in (SHT_SYMTAB, SHT_DYNSYM):
            for table in (s for s in self.sections if s.type == kind):
                strings = bytes(self.contents(self.sections[table.link]))
                entries = bytes(self.contents(table))
                for name in names:
                    if name not in found:
                        value = _lookup(strings, entries, name.encode())
                        if value is not None:
                            found[name] = value
        return found


def _lookup(strings: bytes, entries: bytes, name: bytes) -> int | None:
    """st_value of the symbol called `name` in a symbol table (24-byte entries)."""
    start = strings.find(b"\0" + name + b"\0")
    while start >= 0:
        offset = struct.pack("<I", start + 1)  # st_name is the entry's first field
        at = entries.find(offset)
        while at >= 0:
            if at % 24 == 0:
                return struct.unpack_from("<Q", entries, at + 8)[0]
            at = entries.find(offset, at + 1)
        start = strings.find(b"\0" + name + b"\0", start + 1)
    return None


def _cstr(table: bytes, offset: int) -> str:
    end = table.find(b"\0", offset)
    return table[offset : end if end >= 0 else len(table)].decode("utf-8", "replace")


def _align4(n: int) -> int:
    return (n + 3) & ~3


@contextmanager
def open_elf(path: str | Path) -> Iterator[Elf]:
    """An `Elf` over the file at `path` (mapped, not read); ValueError if it is not
    one, OSError if it cannot be read."""
    with open(path, "rb") as f:
        try:
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # an empty file
            raise ValueError("not an ELF file (empty)") from None
        try:
            yield Elf(mapped)
        finally:
            try:
                mapped.close()
            except BufferError:  # a view is still alive: closed when it is freed
                pass


def image_key(image) -> str | None:
    """The debug key of a JIT object image (bytes), or None."""
    return Elf(image).key


def symbol_file_args(image) -> list[tuple[str, int]]:
    """(section, load address) of each allocated section of a JIT object image that
    was loaded (MCJIT writes the load addresses into the registered image's section
    headers): the ``-s NAME ADDR`` pairs of GDB's ``add-symbol-file``."""
    elf = Elf(image)
    return [
        (s.name, s.addr)
        for s in elf.sections
        if s.flags & SHF_ALLOC and s.addr and s.size and s.name
    ]
