"""The symbol store: debug files of Cuvil builds, keyed by their debug key (= build-id).

A store is a directory laid out the way GDB (``set debug-file-directory DIR``), LLDB
(``settings set target.debug-file-search-paths DIR``) and debuginfod servers read it::

    DIR/.build-id/ab/cdef....debug   the debug file (DWARF) of build-id abcdef...
    DIR/.build-id/ab/cdef...         the stripped library itself, when known
    DIR/.build-id/ab/cdef....json    what `list` shows: kind, name, sizes, date, source

An entry is never trusted blindly: `find` reads the build-id of the file it returns and
refuses one whose build-id is not its path's. Files are written to a temporary name
and renamed, so readers never see half a file and two writers of one key both leave a
whole one.

Which store: ``options={"keep_symbols": DIR}`` (a compile), else ``$CUVIL_SYMBOL_STORE``
(compiles with neither write no symbols); the tools' default (`default_store`) is
``$CUVIL_SYMBOL_STORE``, else ``$XDG_CACHE_HOME/cuvil/symbols`` (``~/.cache/...``).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ..codegen.manifest import SECTION as MANIFEST_SECTION
from ..errors import CuvilRuntimeError
from ..options import CompileOptions
from .debugkey import NOTE_SECTION
from .elfinfo import Elf, open_elf
from .manifest import parse_manifest

__all__ = [
    "SymbolStore",
    "Entry",
    "default_store",
    "store_for",
    "file_key",
    "STORE_ENV",
]

STORE_ENV = "CUVIL_SYMBOL_STORE"
_KEY = re.compile(r"^[0-9a-f]{8,128}$")


def default_store() -> Path:
    """``$CUVIL_SYMBOL_STORE``, else ``$XDG_CACHE_HOME/cuvil/symbols``."""
    if os.environ.get(STORE_ENV):
        return Path(os.environ[STORE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache"
    )
    return Path(base) / "cuvil" / "symbols"


def store_for(options: CompileOptions) -> SymbolStore | None:
    """The store a compile writes its JIT object to: ``keep_symbols``, else
    ``$CUVIL_SYMBOL_STORE``; None: neither is set."""
    root = options.debug_options.keep_symbols or os.environ.get(STORE_ENV)
    return SymbolStore(root) if root else None


def check_key(key: str) -> str:
    key = key.strip().lower()
    if not _KEY.match(key):
        raise CuvilRuntimeError(
            f"'{key}' is not a debug key (a build-id: 8 to 128 hex digits)",
            hint="see a build's key in `cuvil-debug symbols list` or model.json",
        )
    return key


def file_key(elf: Elf, where: str) -> str:
    """The key of an ELF file: its Cuvil note and/or GNU build-id (which must agree)."""
    cuvil, build_id = elf.cuvil_key, elf.build_id
    if cuvil and build_id and cuvil != build_id:
        raise CuvilRuntimeError(
            f"{where}: its build-id {build_id} is not its Cuvil debug key {cuvil}",
            hint="the file was relinked or edited after Cuvil built it",
        )
    if not (cuvil or build_id):
        raise CuvilRuntimeError(
            f"{where} has no build-id (no .note.gnu.build-id, no {NOTE_SECTION})",
            hint="a symbol store files debug info by build-id: link with "
            "-Wl,--build-id, or build it with Cuvil",
        )
    return cuvil or build_id


def _name_of(elf: Elf) -> str | None:
    """The module name in the file's debug manifest, if it has one."""
    section = elf.section(MANIFEST_SECTION)
    if section is None:
        return None
    try:
        doc = parse_manifest(bytes(elf.contents(section)), "symbol store")
    except CuvilRuntimeError:
        return None
    return doc.get("module")


def _kind_of(elf: Elf) -> str:
    """jit (a Cuvil JIT object), aot (a Cuvil library); else the ELF type."""
    if elf.cuvil_key:
        return {"rel": "jit", "dyn": "aot"}.get(elf.type, elf.type)
    return {"rel": "obj", "dyn": "lib", "exec": "exe"}.get(elf.type, elf.type)


@dataclass(frozen=True)
class Entry:
    """One build in the store. `debug` / `executable`: its files (None: absent);
    `valid`: every file's build-id is its key; `added`: seconds since the epoch."""

    key: str
    kind: str  # "jit" (an object), "aot" (a shared library), or the ELF type
    name: str  # the module name of its manifest, or the file it came from
    debug: Path | None
    executable: Path | None
    size: int
    added: float
    source: str
    valid: bool


class SymbolStore:
    """A store directory (created when first written)."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"SymbolStore({str(self.root)!r})"

    # ---- paths -----------------------------------------------------------------------
    def _base(self, key: str) -> Path:
        key = check_key(key)
        return self.root / ".build-id" / key[:2] / key[2:]

    def debug_path(self, key: str) -> Path:
        return self._base(key).with_name(self._base(key).name + ".debug")

    def executable_path(self, key: str) -> Path:
        return self._base(key)

    def _meta_path(self, key: str) -> Path:
        return self._base(key).with_name(self._base(key).name + ".json")

    # ---- reading ---------------------------------------------------------------------
    def find(self, key: str) -> Path | None:
        """The debug file of `key`, if the store has one whose build-id is `key`."""
        return self._verified(self.debug_path(key), check_key(key))

    def find_executable(self, key: str) -> Path | None:
        """The library of `key`: the stripped one filed with it, else its debug file
        when that is a whole library (a build that was not split)."""
        found = self._verified(self.executable_path(key), check_key(key))
        debug = self.find(key) if found is None else None
        if debug is not None:
            with open_elf(debug) as elf:
                whole = elf.type in ("dyn", "exec") and elf.has_code()
            found = debug if whole else None
        return found

    @staticmethod
    def _verified(path: Path, key: str) -> Path | None:
        try:
            with open_elf(path) as elf:
                ok = file_key(elf, str(path)) == key
        except (OSError, ValueError, CuvilRuntimeError):
            return None
        return path if ok else None

    def entries(self) -> list[Entry]:
        """Every build in the store, oldest first (files verified)."""
        top = self.root / ".build-id"
        keys = set()
        for sub in sorted(top.glob("[0-9a-f][0-9a-f]")) if top.is_dir() else ():
            for f in sub.iterdir():
                rest = f.name.split(".", 1)[0]
                if _KEY.match(sub.name + rest):
                    keys.add(sub.name + rest)
        entries = [self._entry(k) for k in keys]
        return sorted(entries, key=lambda e: (e.added, e.key))

    def _entry(self, key: str) -> Entry:
        meta = self._read_meta(key)
        files = [self.debug_path(key), self.executable_path(key)]
        present = [p for p in files if p.is_file()]  # a link counts if it verifies
        valid = bool(present) and all(self._verified(p, key) for p in present)
        if valid and not meta.get("kind"):  # filed by another tool: ask the file
            with open_elf(present[0]) as elf:
                meta = {**meta, "kind": _kind_of(elf), "name": _name_of(elf)}
        added = meta.get("added") or max(
            (p.stat().st_mtime for p in present), default=0.0
        )
        return Entry(
            key=key,
            kind=meta.get("kind") or "?",
            name=meta.get("name") or "?",
            debug=files[0] if files[0] in present else None,
            executable=files[1] if files[1] in present else None,
            size=sum(p.stat().st_size for p in present),
            added=float(added),
            source=meta.get("source", ""),
            valid=valid,
        )

    def _read_meta(self, key: str) -> dict:
        try:
            meta = json.loads(self._meta_path(key).read_text())
        except (OSError, ValueError):
            return {}
        return meta if isinstance(meta, dict) else {}

    # ---- writing ---------------------------------------------------------------------
    def put(
        self,
        debug: bytes | Path | None = None,
        executable: bytes | Path | None = None,
        *,
        name: str | None = None,
        source: str = "",
    ) -> Entry:
        """File a build: its debug file and/or its (stripped) executable, each an ELF
        file's bytes or path. Their build-ids must agree; it is the entry's key. A file
        the store already holds (verified) is kept, not rewritten."""
        files = {"debug": debug, "executable": executable}
        datas = {r: _bytes(f) for r, f in files.items() if f is not None}
        if not datas:
            raise ValueError("put needs a debug file or an executable")
        keys, elfs = {}, {}
        for role, data in datas.items():
            where = str(files[role]) if isinstance(files[role], Path) else role
            elfs[role] = Elf(_checked_elf(data, where))
            keys[role] = file_key(elfs[role], where)
        if len(set(keys.values())) > 1:
            raise CuvilRuntimeError(
                f"the debug file and the executable have different build-ids "
                f"({keys['debug']}, {keys['executable']})",
                hint="they are not from the same build",
            )
        key = next(iter(keys.values()))
        first = next(iter(elfs.values()))
        for role, data in datas.items():
            path = (
                self.debug_path(key) if role == "debug" else self.executable_path(key)
            )
            if self._verified(path, key) is None:
                _write(path, data)
        meta = self._read_meta(key)
        meta.setdefault("added", time.time())
        meta["kind"] = meta.get("kind") or _kind_of(first)
        meta["name"] = (
            name or meta.get("name") or _name_of(first) or Path(source).name or "?"
        )
        meta["source"] = source or meta.get("source", "")
        meta["key"] = key
        _write(self._meta_path(key), json.dumps(meta, indent=1).encode())
        return self._entry(key)

    def remove(self, key: str) -> None:
        """Delete the entry's files: only those three names, only inside the store
        (a link is removed, never what it points to)."""
        paths = (self.debug_path(key), self.executable_path(key), self._meta_path(key))
        if not self._inside(paths[0].parent):
            return
        for path in paths:
            if path.is_symlink() or path.is_file():
                path.unlink()
        try:
            paths[0].parent.rmdir()
        except OSError:
            pass  # not empty

    def _inside(self, folder: Path) -> bool:
        """True if `folder` really is a folder of this store (no link leads out)."""
        try:
            real, top = folder.resolve(strict=True), self.root.resolve(strict=True)
        except OSError:
            return False
        return real.parent == top / ".build-id" and not folder.is_symlink()

    def gc(
        self,
        keep: int | None = None,
        older_than: float | None = None,
        max_bytes: int | None = None,
        now: float | None = None,
    ) -> list[Entry]:
        """Remove broken entries (a file whose build-id is not its key), and, oldest
        first: all but the newest `keep`, those older than `older_than` seconds, and as
        many as it takes to fit in `max_bytes`. Returns what was removed."""
        now = time.time() if now is None else now
        entries = self.entries()
        live = [e for e in entries if e.valid]
        doomed = {e.key for e in entries if not e.valid}
        if older_than is not None:
            doomed |= {e.key for e in live if now - e.added > older_than}
        if keep is not None:
            doomed |= {e.key for e in live[: max(len(live) - keep, 0)]}
        if max_bytes is not None:
            left = [e for e in live if e.key not in doomed]
            total = sum(e.size for e in left)
            for e in left:
                if total <= max_bytes:
                    break
                doomed.add(e.key)
                total -= e.size
        removed = [e for e in entries if e.key in doomed]
        for e in removed:
            self.remove(e.key)
        self._drop_stale_temporaries(now)
        return removed

    def _drop_stale_temporaries(self, now: float) -> None:
        top = self.root / ".build-id"
        for tmp in top.glob("[0-9a-f][0-9a-f]/.*.tmp") if top.is_dir() else ():
            try:
                if self._inside(tmp.parent) and now - tmp.stat().st_mtime > 3600:
                    tmp.unlink()
            except OSError:
                pass


def _bytes(f: bytes | Path) -> bytes:
    if isinstance(f, (bytes, bytearray, memoryview)):
        return bytes(f)
    try:
        return Path(f).read_bytes()
    except OSError as e:
        raise CuvilRuntimeError(f"cannot read {f}: {e.strerror}") from None


def _checked_elf(data: bytes, where: str) -> bytes:
    try:
        Elf(data)
    except ValueError as e:
        raise CuvilRuntimeError(f"{where}: {e}") from None
    return data


def _write(path: Path, data: bytes) -> None:
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide it from a shared server
        os.replace(tmp, path)
    except OSError as e:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        raise CuvilRuntimeError(
            f"cannot write to the symbol store: {path}: {e.strerror}",
            hint=f"choose a writable store (keep_symbols or ${STORE_ENV})",
        ) from None
