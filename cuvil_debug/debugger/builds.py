"""The Cuvil builds in a debuggee, and what a user's name for a thing resolves to.

A build is found where the debugger meets it: a JIT object through the GDB JIT
interface's descriptor (``__jit_debug_descriptor``: a linked list of in-memory ELF images,
whose section addresses the JIT loader patched to where the sections live), or an AOT
library among the loaded shared objects. Either way its ``.cuvil.manifest`` section says
what each kernel computes (docs/DEBUGGING.md) and its symbol table where each kernel is.
"""

from __future__ import annotations

import difflib
import json
import os
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .elf import Elf, open_elf, plt_stubs

__all__ = ["Build", "KernelSite", "Resolution", "find_builds", "resolve", "jit_images"]

MANIFEST_SECTION = ".cuvil.manifest"
MANIFEST_MAGIC, MANIFEST_VERSION = b"CUVM", 2
DESCRIPTOR = "__jit_debug_descriptor"
STT_OBJECT, STT_FUNC = 1, 2
SHN_ABS = 0xFFF1
MAX_IMAGES = 4096
MAX_IMAGE_BYTES = 1 << 30  # a corrupt list must not loop forever

Read = Callable[[int, int], bytes]


@dataclass(frozen=True)
class KernelSite:
    """One kernel of a build: its manifest entry and where its code is."""

    symbol: str
    start: int
    size: int
    info: dict[str, Any]

    def contains(self, pc: int) -> bool:
        return self.start <= pc < self.start + max(self.size, 1)

    @property
    def nodes(self) -> list[str]:
        return self.info.get("nodes", [])

    def label(self) -> str:
        nodes = ", ".join(self.nodes) or "-"
        return f"{self.symbol} [{self.info.get('op')}: {nodes}]"


@dataclass
class Build:
    """One compiled model in the process (a JIT object or a loaded AOT library)."""

    origin: str  # "jit@0x..." or the library's path
    manifest: dict[str, Any]
    key: str | None
    kernels: dict[str, KernelSite]
    symbols: dict[str, tuple[int, int]]  # every defined symbol: (address, size)
    sections: dict[str, int] = field(default_factory=dict)  # name -> address (JIT)
    image: tuple[int, int] | None = None  # (address, size) of a JIT image
    base: int = 0  # a library's load base
    # a JIT object's calls of each kernel from the entry/steps: (field address, reloc
    # type), read from its relocations (the code is not relocated yet when it registers)
    call_fields: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    # a library's PLT entry of each kernel (it calls its exported kernels through them)
    plt: dict[str, int] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.manifest.get("module", "?")

    def function(self, name: str) -> tuple[int, int] | None:
        return self.symbols.get(name)

    def kernel_at(self, pc: int, function: str | None = None) -> KernelSite | None:
        """The kernel whose code holds `pc`; in a release build, whose kernels are
        inlined into the entry (no symbols of their own), the one the debugger's
        inline frame names (`function`, from the line tables)."""
        site = next((k for k in self.kernels.values() if k.contains(pc)), None)
        if site is None and function and function not in self.kernels:
            info = next(
                (
                    k
                    for k in self.manifest.get("kernels", [])
                    if k["symbol"] == function
                ),
                None,
            )
            site = KernelSite(function, 0, 0, info) if info else None
        return site

    def contains(self, pc: int) -> bool:
        return any(a <= pc < a + max(s, 1) for a, s in self.symbols.values())

    def by_call(self, call: int) -> KernelSite | None:
        return next(
            (k for k in self.kernels.values() if k.info.get("call") == call), None
        )


def decode_manifest(data: bytes) -> dict[str, Any] | None:
    """The manifest in a ``.cuvil.manifest`` section (docs/DEBUGGING.md: a 16-byte
    header, magic ``CUVM``, version, sizes; then zlib'd JSON); None if it is not one."""
    if len(data) < 16 or data[:4] != MANIFEST_MAGIC:
        return None
    version, packed, size = struct.unpack_from("<III", data, 4)
    if version != MANIFEST_VERSION:
        return None
    try:
        text = zlib.decompress(data[16 : 16 + packed])
        manifest = json.loads(text) if len(text) == size else None
    except (zlib.error, ValueError):
        return None
    ok = isinstance(manifest, dict) and manifest.get("format") == "cuvil.manifest"
    return manifest if ok else None


def _build(elf: Elf, origin: str, base: int, image=None) -> Build | None:
    section = elf.section(MANIFEST_SECTION)
    manifest = decode_manifest(bytes(elf.contents(section))) if section else None
    if manifest is None:
        return None
    symbols = {
        s.name: (base + elf.address(s), s.size)
        for s in elf.symbol_table()
        if s.kind in (STT_OBJECT, STT_FUNC) and s.shndx != SHN_ABS
    }
    kernels = {}
    for info in manifest.get("kernels", []):
        where = symbols.get(info["symbol"])
        if where is not None:
            kernels[info["symbol"]] = KernelSite(
                info["symbol"], where[0], where[1], info
            )
    sections = {s.name: s.addr for s in elf.sections if s.addr} if image else {}
    key = elf.key
    build = Build(origin, manifest, key, kernels, symbols, sections, image, base)
    if elf.relocatable:
        build.call_fields = _call_fields(
            elf, manifest.get("entry", "cuvil_main"), kernels
        )
    else:
        stubs = plt_stubs(elf)
        build.plt = {n: base + a for a, n in stubs.items() if n in kernels}
    return build


def _call_fields(
    elf: Elf, entry: str, kernels: dict
) -> dict[str, list[tuple[int, int]]]:
    """Kernel -> (address, type) of each relocated field that calls it from the entry
    or a step function."""
    out: dict[str, list[tuple[int, int]]] = {}
    by_section: dict[int, list] = {}
    for sym in elf.symbol_table():
        if sym.name != entry and not sym.name.startswith("cuvil_step_"):
            continue
        if sym.shndx not in by_section:
            by_section[sym.shndx] = elf.relocations(sym.shndx)
        base = elf.sections[sym.shndx].addr
        for offset, name, kind in by_section[sym.shndx]:
            if name in kernels and sym.value <= offset < sym.value + sym.size:
                out.setdefault(name, []).append((base + offset, kind))
    return out


def jit_images(read: Read, descriptor: int) -> list[tuple[int, int]]:
    """(address, size) of each in-memory object the GDB JIT interface lists."""
    version, _, _, entry = struct.unpack("<IIQQ", read(descriptor, 24))
    if version != 1:
        return []
    out, seen = [], set()
    while entry and entry not in seen and len(out) < MAX_IMAGES:
        seen.add(entry)
        nxt, _, addr, size = struct.unpack("<QQQQ", read(entry, 32))
        out.append((addr, size))
        entry = nxt
    return out


class BuildCache:
    """Builds by where they are, so a refresh re-reads only what is new."""

    def __init__(self) -> None:
        self._jit: dict[tuple[int, int], Build | None] = {}
        self._libs: dict[tuple[str, int, float], Build | None] = {}

    def jit(self, read: Read, image: tuple[int, int]) -> Build | None:
        if image not in self._jit:
            addr, size = image
            try:  # a JIT object is small: read it whole
                elf = Elf(read(addr, size)) if 0 < size < MAX_IMAGE_BYTES else None
                self._jit[image] = elf and _build(elf, f"jit@{addr:#x}", 0, image)
            except Exception:  # unreadable or not ELF: not a build we can describe
                self._jit[image] = None
        return self._jit[image]

    def library(self, path: str, base: int) -> Build | None:
        try:
            stamp = os.stat(path).st_mtime
        except OSError:
            return None
        key = (path, base, stamp)
        if key not in self._libs:
            try:
                with open_elf(path) as elf:
                    self._libs[key] = _build(elf, path, base)
            except (struct.error, OSError, ValueError):
                self._libs[key] = None
        return self._libs[key]


def find_builds(
    cache: BuildCache,
    read: Read,
    descriptor: int | None,
    libraries: list[tuple[str, int]],
) -> list[Build]:
    """Every Cuvil build: JIT objects first (in registration order), then libraries."""
    builds = []
    if descriptor:
        try:
            images = jit_images(read, descriptor)
        except Exception:  # a debugger's own memory error: nothing readable there
            images = []
        builds += [b for img in images if (b := cache.jit(read, img)) is not None]
    for path, base in libraries:
        if path and not path.startswith("["):
            build = cache.library(path, base)
            if build is not None:
                builds.append(build)
    return builds


# ---- what a name means ---------------------------------------------------------------
@dataclass
class Resolution:
    """The kernels a spec names, and a sentence for the user when it needs one."""

    targets: list[tuple[Build, KernelSite]] = field(default_factory=list)
    note: str = ""


def _line_of(source: str | None) -> tuple[str, int] | None:
    if not source:
        return None
    parts = source.split(":")
    if len(parts) < 2 or not parts[1].isdigit():
        return None
    return os.path.basename(parts[0]), int(parts[1])


def _at_line(kernel: KernelSite, file: str, line: int) -> bool:
    sources = [kernel.info.get("source")]
    sources += [m.get("source") for m in kernel.info.get("members", [])]
    return any(_line_of(s) == (os.path.basename(file), line) for s in sources)


def _node_note(node: str, entry: dict[str, Any], site: KernelSite | None) -> str:
    status, kernel = entry.get("status"), entry.get("kernel")
    where = site.label() if site else kernel
    notes = {
        "fused": f"{node} is fused into {where}: stopping at that kernel",
        "folded": f"{node} was folded into {where} (its own value no longer exists): "
        "stopping at that kernel",
        "alias": f"{node} is a view of another value, computed by {where}",
        "input": f"{node} is an input of the model: no kernel computes it",
        "param": f"{node} is a parameter: no kernel computes it",
        "constant": f"{node} is a constant computed at compile time: no kernel",
        "removed": f"{node} was removed by an optimization (its value is unused)",
    }
    return notes.get(status, "") if status != "kernel" else ""


def resolve(builds: list[Build], spec: str) -> Resolution:
    """The kernels `spec` names: an FX node, a kernel symbol, an op (``cuvil.relu`` or
    ``relu``) or ``FILE:LINE``; an unknown spec resolves to nothing, with a note."""
    res = Resolution()
    line = _line_of(spec) if ":" in spec and not spec.startswith("cuvil.") else None
    for build in builds:
        kernels = list(build.kernels.values())
        nodes = build.manifest.get("nodes", {})
        if line is not None:
            hits = [k for k in kernels if _at_line(k, *line)]
        elif spec in build.kernels:
            hits = [build.kernels[spec]]
        elif spec in nodes:
            entry = nodes[spec]
            site = build.kernels.get(entry.get("kernel") or "")
            hits = [site] if site else []
            if entry.get("kernel") and site is None:  # a release build: no symbols
                res.note = res.note or _inlined_note(spec, build)
            res.note = res.note or _node_note(spec, entry, site)
        else:
            hits = [k for k in kernels if spec in k.nodes or _is_op(k, spec)]
        res.targets += [(build, k) for k in hits]
    if not res.targets and not res.note:
        res.note = _unknown(builds, spec)
    return res


def _inlined_note(spec: str, build: Build) -> str:
    return (
        f"{spec} is in {build.name}, a release build: its kernels are inlined into "
        "cuvil_main and have no address of their own; compile with debug=True, or "
        f"with options={{'break_on': ['{spec}']}} for a trap in its code"
    )


def _is_op(kernel: KernelSite, spec: str) -> bool:
    op = spec if spec.startswith("cuvil.") else f"cuvil.{spec}"
    ops = [kernel.info.get("op")] + [
        m.get("op") for m in kernel.info.get("members", [])
    ]
    return op in ops


def _unknown(builds: list[Build], spec: str) -> str:
    if not builds:
        return f"no Cuvil code is loaded yet; '{spec}' stays pending until it is"
    names = {n for b in builds for n in b.manifest.get("nodes", {})}
    names |= {s for b in builds for s in b.kernels}
    close = difflib.get_close_matches(spec, sorted(names), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"'{spec}' is not a node, kernel, op or line of any loaded Cuvil build{hint}"
