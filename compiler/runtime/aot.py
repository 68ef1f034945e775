"""Ahead-of-time: ``cuvil.save`` writes a compiled model as a shared library bundle and
``cuvil.load`` runs it again without recompiling.

A bundle is a directory::

    model.so        native code (PIC object -> ``cc -shared``), GNU build-id = debug key
    model.debug     only with ``save(..., split_debug=True)``: model.so's DWARF, which
                    model.so then lacks (it names this file in its .gnu_debuglink)
    model.json      metadata: debug key, IR fingerprint, target, options, versions,
                    SHA-256 of model.so, params.pt (and model.debug), input/output
                    types, param names
    params.pt       the param tensors (``torch.save`` of a name -> tensor dict)

The debug key (debugkey.py) is the library's build-id and is also stored in an ELF note
``.note.cuvil.debugkey``, which survives ``strip``. A split bundle is the same format
(``cuvil-aot-1``, with an optional ``debug`` entry); ``load`` does not need model.debug,
so a bundle shipped without it loads. The debug file goes to a symbol store with
``cuvil-debug symbols add BUNDLE`` (or at save time, when the compile had
``keep_symbols`` or ``$CUVIL_SYMBOL_STORE`` is set).
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import torch
from torch.utils._pytree import treespec_dumps, treespec_loads

from ..codegen.target import target_machine
from ..errors import CuvilError
from ..ir.types import DType, TensorType
from ..options import CompileOptions
from . import debugfiles
from .compiled import CompiledModule, NativeModule
from .debugkey import (
    NOTE_SECTION,
    debug_key,
    key_options,
    note_module,
    sha256,
    target,
    versions,
)
from .elfinfo import open_elf
from .jit import EntryFn, parse_and_optimize
from .status import STATUS_SYMBOL, StatusWord
from .symbols import store_for

__all__ = [
    "save",
    "load",
    "bundle_files",
    "LoadedModule",
    "debug_key",
    "NOTE_SECTION",
    "FORMAT",
]

FORMAT = "cuvil-aot-1"
LIBRARY, DEBUG, METADATA, PARAMS = "model.so", "model.debug", "model.json", "params.pt"
GDB_AUTOLOAD = LIBRARY + "-gdb.py"  # GDB's objfile-gdb.py auto-load convention


# ---- save --------------------------------------------------------------------------
def save(
    compiled: CompiledModule,
    path: str | os.PathLike,
    *,
    overwrite: bool = False,
    split_debug: bool = False,
) -> Path:
    """Write `compiled` as a bundle directory at `path`; returns the path.

    An existing `path` is refused unless ``overwrite=True`` (then the bundle's files are
    replaced). `split_debug`: model.so without DWARF plus model.debug (needs binutils'
    ``objcopy``). Needs a C compiler driver (``cc``, or ``$CC``) to link the library.
    With ``keep_symbols`` or ``$CUVIL_SYMBOL_STORE`` the debug info is also filed in
    that symbol store.
    """
    out = _check_save(compiled, path, overwrite)
    program, options = compiled.program, compiled.options
    aot_target, vers = target(), versions()
    key = debug_key(program.llvm_ir, aot_target, key_options(options), vers)
    with tempfile.TemporaryDirectory(prefix="cuvil-aot-") as tmp:
        library = _build_library(program, options.opt, key, Path(tmp))
        debug = Path(tmp) / DEBUG if split_debug else None
        if debug is not None:
            debugfiles.split_library(library, debug)
        params = {n: compiled._params[i] for i, n in enumerate(program.params)}
        torch.save(params, Path(tmp) / PARAMS)
        meta = _metadata(compiled, key, aot_target, vers, library, Path(tmp) / PARAMS)
        if debug is not None:
            meta["debug"] = {"file": DEBUG, "sha256": sha256(debug.read_bytes())}
        (Path(tmp) / METADATA).write_text(json.dumps(meta, indent=2) + "\n")
        (Path(tmp) / GDB_AUTOLOAD).write_text(_gdb_autoload())
        store = store_for(options)
        if store is not None:
            shipped = library if debug is not None else None  # else one file is both
            store.put(debug=debug or library, executable=shipped, source=str(out))
        out.mkdir(parents=True, exist_ok=True)
        if not split_debug and (out / DEBUG).is_file():
            (out / DEBUG).unlink()  # an older split bundle's, overwritten
        names = [LIBRARY, *([DEBUG] if split_debug else []), PARAMS, GDB_AUTOLOAD]
        names.append(METADATA)
        for name in names:  # metadata last: it vouches for the rest
            shutil.move(str(Path(tmp) / name), out / name)
    return out


def _check_save(compiled, path: str | os.PathLike, overwrite: bool) -> Path:
    if not isinstance(compiled, CompiledModule):
        raise CuvilError(
            f"cuvil.save takes a CompiledModule, got {type(compiled).__name__}",
            hint="compile the model first: cm = cuvil.compile(model, inputs)",
        )
    out = Path(path)
    if out.exists() and not overwrite:
        raise CuvilError(
            f"'{out}' already exists", hint="choose a new path or pass overwrite=True"
        )
    if out.exists() and not out.is_dir():
        raise CuvilError(
            f"'{out}' is a file; a saved model is a directory", hint="choose a new path"
        )
    return out


def _gdb_autoload() -> str:
    """``model.so-gdb.py``: GDB sources it when it loads model.so from a folder in its
    auto-load safe-path, and it sources the cuvil commands (gdb_scripts/cuvil.py) of the
    Cuvil that saved the bundle, if that checkout has them. Not part of what
    ``cuvil.load`` checks or runs: only a debugger the user told to trust the folder
    reads it."""
    root = Path(__file__).resolve().parents[2]  # the checkout (or site-packages)
    return (
        "# GDB auto-loads this beside model.so (add-auto-load-safe-path THIS_FOLDER):\n"
        "# the cuvil commands, docs/DEBUGGING.md. Written by cuvil.save.\n"
        "import os\nimport sys\n\nimport gdb\n\n"
        f"ROOT = {str(root)!r}\n"
        'SCRIPT = os.path.join(ROOT, "gdb_scripts", "cuvil.py")\n'
        "if os.path.isfile(SCRIPT):\n"
        "    if ROOT not in sys.path:  # the script's own path is not known when\n"
        "        sys.path.insert(0, ROOT)  # GDB sources it from here\n"
        '    gdb.execute(f"source {SCRIPT}")\n'
    )


def _build_library(program, opt: int, key: str, tmp: Path) -> Path:
    mod = parse_and_optimize(program, opt)
    mod.link_in(note_module(key))
    obj = tmp / "model.o"
    obj.write_bytes(target_machine(opt, jit=False).emit_object(mod))
    library = tmp / LIBRARY
    cc = os.environ.get("CC", "cc")
    cmd = [
        cc,
        "-shared",
        "-o",
        str(library),
        str(obj),
        f"-Wl,--build-id=0x{key}",
        "-lm",
    ]
    try:
        subprocess.run(cmd, check=True, capture_output=True, text=True)
    except FileNotFoundError:
        raise CuvilError(
            f"no C compiler driver '{cc}' to link the shared library",
            hint="install gcc or clang, or set $CC",
        ) from None
    except subprocess.CalledProcessError as e:
        raise CuvilError(
            f"linking the shared library failed: {e.stderr.strip()}",
            hint=f"command: {' '.join(cmd)}",
        ) from None
    return library


def _type(t: TensorType) -> dict[str, Any]:
    return {"shape": list(t.shape), "dtype": t.dtype.value, "layout": t.layout}


def _metadata(
    compiled: CompiledModule,
    key: str,
    target: dict,
    versions: dict,
    library: Path,
    params: Path,
) -> dict[str, Any]:
    program, spec = compiled.program, compiled._output_spec
    return {
        "format": FORMAT,
        "debug_key": key,
        "ir_sha256": sha256(program.llvm_ir.encode()),
        "target": target,
        "options": compiled.options.to_dict(),
        "versions": versions,
        "library": {"file": LIBRARY, "sha256": sha256(library.read_bytes())},
        "params": {
            "file": PARAMS,
            "sha256": sha256(params.read_bytes()),
            "names": list(program.params),
        },
        "entry": program.entry,
        "arena_bytes": program.arena_bytes,
        "inputs": [{"name": n, **_type(t)} for n, t in compiled._inputs],
        "outputs": [_type(t) for t in program.outputs],
        "output_spec": treespec_dumps(spec) if spec is not None else None,
        "kernels": [
            {
                "symbol": k.symbol,
                "op": k.op_name,
                "nodes": list(k.nodes),
                "source": k.source,
            }
            for k in program.kernels
        ],
    }


# ---- load --------------------------------------------------------------------------
class LoadedModule(NativeModule):
    """A model loaded by ``cuvil.load``: the saved native code, no compiler involved.

    ``metadata`` is the bundle's model.json (its ``options``: the flat keys, parsed into
    ``options``); ``library`` the ctypes handle of model.so.
    """

    def __init__(
        self,
        path: Path,
        metadata: dict[str, Any],
        library: ctypes.CDLL,
        params: dict[str, torch.Tensor],
    ) -> None:
        self.path, self.metadata, self.library = path, metadata, library
        self.options = CompileOptions.parse(metadata["options"])
        entry = EntryFn(
            ctypes.cast(getattr(library, metadata["entry"]), ctypes.c_void_p).value
        )
        spec = metadata.get("output_spec")
        super().__init__(
            entry,
            library,
            [(i["name"], _tensor_type(i)) for i in metadata["inputs"]],
            [_tensor_type(o) for o in metadata["outputs"]],
            [params[n] for n in metadata["params"]["names"]],
            metadata["arena_bytes"],
            treespec_loads(spec) if spec else None,
        )
        self._status = _status_word(library, metadata)

    @property
    def debug_key(self) -> str:
        return self.metadata["debug_key"]


def _status_word(library: ctypes.CDLL, metadata: dict[str, Any]) -> StatusWord | None:
    """The library's index-check status word, if a kernel checks indices."""
    try:
        addr = ctypes.addressof(ctypes.c_int64.in_dll(library, STATUS_SYMBOL))
    except ValueError:
        return None
    rows = [
        (k["symbol"], k["op"], k["nodes"], k["source"]) for k in metadata["kernels"]
    ]
    return StatusWord(addr, rows)


def _tensor_type(d: dict[str, Any]) -> TensorType:
    return TensorType(
        tuple(d["shape"]), DType(d["dtype"]), d.get("layout", "contiguous")
    )


def load(path: str | os.PathLike) -> LoadedModule:
    """Load a bundle written by ``cuvil.save``; refuses a library or params file whose
    SHA-256 differs from the metadata's, and a missing or corrupt metadata file."""
    root = Path(path)
    meta = _read_metadata(root)
    library = root / meta["library"]["file"]
    params_file = root / meta["params"]["file"]
    _check_digest(library, meta["library"]["sha256"], "library", _stripped_hint(meta))
    _check_digest(params_file, meta["params"]["sha256"], "params file")
    params = torch.load(params_file, weights_only=True)
    try:
        lib = ctypes.CDLL(str(library.resolve()))
    except OSError as e:
        raise CuvilError(
            f"cannot load '{library}': {e}",
            hint="was it saved on a machine with another OS or CPU?",
        ) from None
    return LoadedModule(root, meta, lib, params)


def bundle_files(path: str | os.PathLike) -> tuple[dict[str, Any], Path, Path | None]:
    """(metadata, library, debug file or None) of a bundle, each checked against its
    SHA-256 in the metadata; the debug file is None when the bundle has none (not
    split, or copied without it)."""
    root = Path(path)
    meta = _read_metadata(root)
    library = root / meta["library"]["file"]
    _check_digest(library, meta["library"]["sha256"], "library", _stripped_hint(meta))
    entry = meta.get("debug")
    debug = root / entry["file"] if isinstance(entry, dict) else None
    if debug is not None and not debug.is_file():
        debug = None
    if debug is not None:
        _check_digest(debug, entry["sha256"], "debug file")
    return meta, library, debug


def _read_metadata(root: Path) -> dict[str, Any]:
    file = root / METADATA
    if not file.is_file():
        raise CuvilError(
            f"'{root}' is not a saved Cuvil model: {file} is missing",
            hint="save one with cuvil.save(compiled, path)",
        )
    try:
        meta = json.loads(file.read_text())
        required = ("format", "library", "params", "entry", "inputs", "outputs")
        if not isinstance(meta, dict) or any(k not in meta for k in required):
            raise ValueError("fields are missing")
    except (ValueError, UnicodeDecodeError) as e:
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


def _check_digest(
    file: Path, expected: str, what: str, hint=lambda _file: None
) -> None:
    if not file.is_file():
        raise CuvilError(f"the saved model's {what} {file} is missing")
    actual = sha256(file.read_bytes())
    if actual != expected:
        raise CuvilError(
            f"the saved model's {what} {file} does not match its metadata "
            f"(SHA-256 {actual[:16]}…, expected {expected[:16]}…); "
            "refusing to load it",
            hint=hint(file)
            or "the file was modified or replaced; save the model again",
        )


def _stripped_hint(meta: dict[str, Any]):
    """A hint for a library that is still the saved build (its build-id is the key)
    but was edited, as ``strip`` does."""

    def hint(file: Path) -> str | None:
        try:
            with open_elf(file) as elf:
                same_build = elf.build_id == meta.get("debug_key")
        except (OSError, ValueError):
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
