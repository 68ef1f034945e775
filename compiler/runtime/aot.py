"""Ahead-of-time: ``cuvil.save`` writes a compiled model as a shared library bundle and
``cuvil.load`` runs it again without recompiling.

A bundle is a directory::

    model.so        native code (PIC object -> ``cc -shared``), GNU build-id = debug key
    model.debug     only with ``save(..., split_debug=True)``: model.so's DWARF, which
                    model.so then lacks (it names this file in its .gnu_debuglink)
    model.json      metadata: debug key, IR fingerprint, target, options, versions,
                    SHA-256 of model.so, params.pt (and model.debug), input/output
                    types, param names and layout
    params.pt       the param tensors (``torch.save`` of a name -> tensor dict)
    model.sig       only with ``save(..., signing_key=)``: an Ed25519 signature over
                    every other file's SHA-256 (signing.py)

model.so also carries its own ABI (the section ``.cuvil.abi``, bundle_abi.py): what
``load`` checks model.json and params.pt against before any of the library's code runs,
then the library is loaded from a private copy (bundle_fs.py). Threat model:
docs/RELIABILITY.md, "AOT bundles".

The debug key (debugkey.py) is the library's build-id and is also stored in an ELF note
``.note.cuvil.debugkey``, which survives ``strip``. A split bundle is the same format
(``cuvil-aot-2``, with an optional ``debug`` entry); ``load`` does not need model.debug,
so a bundle shipped without it loads. The debug file goes to a symbol store with
``cuvil-debug symbols add BUNDLE`` (or at save time, when the compile had
``keep_symbols`` or ``$CUVIL_SYMBOL_STORE`` is set).
"""

from __future__ import annotations

import ctypes
import io
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import torch
from torch.utils._pytree import treespec_dumps, treespec_loads

from ..codegen.cpu import resolve_isa
from ..codegen.target import target_machine
from ..errors import CuvilError
from ..ir.types import DType, TensorType
from ..options import CompileOptions
from . import debugfiles, signing
from .bundle_abi import (
    abi_fields,
    abi_module,
    check_metadata,
    check_params,
    params_layout,
    read_abi,
    seal_library,
)
from .bundle_fs import (
    check_target,
    confined_name,
    drop_private_copy,
    install,
    link_beside,
    private_copy,
    read_file,
    staging_dir,
)
from .bundle_meta import (
    DEBUG,
    FORMAT,
    LIBRARY,
    METADATA,
    PARAMS,
    bundle_files,
    check_digest,
    file_entry,
    read_metadata,
    stripped_hint,
    verify_signature,
)
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
    "METADATA",
]

GDB_AUTOLOAD = LIBRARY + "-gdb.py"  # GDB's objfile-gdb.py auto-load convention


# ---- save --------------------------------------------------------------------------
def save(
    compiled: CompiledModule,
    path: str | os.PathLike,
    *,
    overwrite: bool = False,
    split_debug: bool = False,
    signing_key: object = None,
) -> Path:
    """Write `compiled` as a bundle directory at `path`; returns the path.

    An existing `path` is refused unless ``overwrite=True``, and even then unless it
    is a bundle (or empty) folder and not a symlink: the new bundle is written into a
    fresh folder beside it and renamed into place, so nothing is written through a
    link. `split_debug`: model.so without DWARF plus model.debug (needs binutils'
    ``objcopy``). `signing_key` (an Ed25519 key: a ``cryptography`` key object, 32 raw
    bytes or PEM; needs ``cuvil[sign]``) adds model.sig, a signature over every file,
    which ``cuvil.load(path, trusted_keys=[...])`` requires. Needs a C compiler driver
    (``cc``, or ``$CC``) to link the library. With ``keep_symbols`` or
    ``$CUVIL_SYMBOL_STORE`` the debug info is also filed in that symbol store.
    """
    out = _check_save(compiled, path, overwrite)
    if signing_key is not None:
        signing.private_key(signing_key)  # a bad key fails before the slow work
    stage = staging_dir(out)
    try:
        _write_bundle(compiled, stage, split_debug, out)
        if signing_key is not None:
            signing.sign_bundle(stage, signing_key)
        install(stage, out, overwrite)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return out


def _write_bundle(compiled: CompiledModule, tmp: Path, split_debug: bool, out: Path):
    """The bundle's files, into the empty folder `tmp`."""
    program, options = compiled.program, compiled.options
    aot_target, vers = target(), versions()
    key = debug_key(program.llvm_ir, aot_target, key_options(options), vers)
    params = {n: compiled._params[i] for i, n in enumerate(program.params)}
    torch.save(params, tmp / PARAMS)
    meta = _metadata(compiled, key, aot_target, vers, tmp / PARAMS, params)
    library = _build_library(program, options.opt, key, abi_fields(meta), tmp)
    debug = tmp / DEBUG if split_debug else None
    if debug is not None:
        debugfiles.split_library(library, debug)
        meta["debug"] = {"file": DEBUG, "sha256": sha256(debug.read_bytes())}
    library.write_bytes(seal_library(library.read_bytes()))  # after any objcopy
    meta["library"] = {"file": LIBRARY, "sha256": sha256(library.read_bytes())}
    (tmp / METADATA).write_text(json.dumps(meta, indent=2) + "\n")
    (tmp / GDB_AUTOLOAD).write_text(_gdb_autoload())
    store = store_for(options)
    if store is not None:
        shipped = library if debug is not None else None  # else one file is both
        store.put(debug=debug or library, executable=shipped, source=str(out))


def _check_save(compiled, path: str | os.PathLike, overwrite: bool) -> Path:
    if not isinstance(compiled, CompiledModule):
        raise CuvilError(
            f"cuvil.save takes a CompiledModule, got {type(compiled).__name__}",
            hint="compile the model first: cm = cuvil.compile(model, inputs)",
        )
    out = Path(path)
    check_target(out, overwrite)
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


def _build_library(program, opt: int, key: str, abi: dict, tmp: Path) -> Path:
    mod = parse_and_optimize(program, opt)
    mod.link_in(note_module(key))
    mod.link_in(abi_module(abi))
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
    obj.unlink()
    return library


def _type(t: TensorType) -> dict[str, Any]:
    return {"shape": list(t.shape), "dtype": t.dtype.value, "layout": t.layout}


def _metadata(
    compiled: CompiledModule,
    key: str,
    target: dict,
    versions: dict,
    params_file: Path,
    params: dict[str, torch.Tensor],
) -> dict[str, Any]:
    program, spec = compiled.program, compiled._output_spec
    return {
        "format": FORMAT,
        "debug_key": key,
        "ir_sha256": sha256(program.llvm_ir.encode()),
        "target": target,
        "options": compiled.options.to_dict(),
        "versions": versions,
        "params": {
            "file": PARAMS,
            "sha256": sha256(params_file.read_bytes()),
            "names": list(program.params),
            "layout": params_layout(params),
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


def load(path: str | os.PathLike, *, trusted_keys=None) -> LoadedModule:
    """Load a bundle written by ``cuvil.save``. Before any code of it runs: every file
    name must be a plain name in the bundle and a regular file (no links); model.so
    and params.pt must match model.json's SHA-256s; model.so must carry its ABI with
    an intact self-digest, model.json must agree with that ABI and params.pt must hold
    the tensors it names. The library is then loaded from a private copy with a unique
    name (bundle_fs.py). With `trusted_keys` (Ed25519 public keys: ``cryptography``
    key objects, 32 raw bytes or PEM; needs ``cuvil[sign]``), the bundle must also be
    signed by one of them, with no file changed, added or removed since."""
    root = Path(path)
    signed = verify_signature(root, trusted_keys)
    meta = read_metadata(root, signed)
    where = str(root / METADATA)
    lib_name = confined_name(file_entry(meta, "library", where)["file"], "library")
    params_name = confined_name(file_entry(meta, "params", where)["file"], "params")
    data = read_file(root, lib_name, "library")
    signing.check_signed(signed, lib_name, data, root)
    check_digest(data, root / lib_name, meta["library"], "library", stripped_hint(meta))
    copy, data = private_copy(data, LIBRARY)
    try:
        signing.check_signed(signed, lib_name, data, root)  # what dlopen gets
        check_digest(data, root / lib_name, meta["library"], "library")
        abi = read_abi(data, str(root / lib_name))
        check_metadata(meta, abi, where)
        params = _read_params(root, params_name, abi, signed)
        _check_quant_isa(meta)
        link_beside(copy, root / GDB_AUTOLOAD)
        lib = _dlopen(copy, root / lib_name)
    except BaseException:
        drop_private_copy(copy)  # refused: its private copy goes now
        raise
    try:
        return LoadedModule(root, meta, lib, params)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise CuvilError(
            f"'{root}': the library's ABI is unusable ({type(e).__name__}: {e})",
            hint="save the model again with cuvil.save",
        ) from None


def _check_quant_isa(meta: dict[str, Any]) -> None:
    """An int8 / bf16 build runs only where its instruction set does (an AMX one after
    the OS grants the tile state, asked for here); else a CuvilError, not a SIGILL."""
    quant = (meta.get("options") or {}).get("quantize")
    if isinstance(quant, dict) and quant.get("isa") not in (None, "auto"):
        resolve_isa(quant.get("mode", "int8"), quant["isa"])


def _dlopen(copy: Path, shown: Path) -> ctypes.CDLL:
    try:
        return ctypes.CDLL(str(copy))
    except OSError as e:
        raise CuvilError(
            f"cannot load '{shown}': {e}",
            hint="was it saved on a machine with another OS or CPU? (or is $TMPDIR "
            "mounted noexec? the library is loaded from a private copy there)",
        ) from None


def _read_params(root: Path, name: str, abi: dict, signed) -> dict[str, torch.Tensor]:
    data = read_file(root, name, "params file")
    signing.check_signed(signed, name, data, root)
    check_digest(data, root / name, abi["params"], "params file")
    try:
        params = torch.load(io.BytesIO(data), weights_only=True)
    except Exception as e:  # noqa: BLE001 - torch's unpickler raises many kinds
        raise CuvilError(
            f"the saved model's params file {root / name} cannot be read: "
            f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
            hint="save the model again with cuvil.save",
        ) from None
    check_params(params, abi, str(root / name))
    return params
