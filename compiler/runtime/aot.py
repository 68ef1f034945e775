"""Ahead-of-time: ``cuvil.save`` writes a compiled model as a shared library bundle and
``cuvil.load`` runs it again without recompiling.

A bundle is a directory::

    model.so        native code (PIC object -> ``cc -shared``), GNU build-id = debug key
    model.json      metadata: debug key, IR fingerprint, target, options, versions,
                    SHA-256 of model.so and params.pt, input/output types, param names
    params.pt       the param tensors (``torch.save`` of a name -> tensor dict)

The debug key is a SHA-256-derived fingerprint of everything that decides the machine
code: LLVM IR, target triple, CPU, features, options, Cuvil and LLVM versions (the IR
alone collides; DEBUGGERS.md trap 5). It is the library's build-id and is also stored in
an ELF note ``.note.cuvil.debugkey``, which survives ``strip``.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import llvmlite
import llvmlite.binding as llvm
import torch
from torch.utils._pytree import treespec_dumps, treespec_loads

from ..codegen.target import host_cpu, target_machine, target_triple
from ..errors import CuvilError
from ..ir.types import DType, TensorType
from ..options import CompileOptions
from ..version import __version__
from .compiled import CompiledModule, NativeModule
from .jit import EntryFn, parse_and_optimize

__all__ = ["save", "load", "LoadedModule", "debug_key", "NOTE_SECTION", "FORMAT"]

FORMAT = "cuvil-aot-1"
LIBRARY, METADATA, PARAMS = "model.so", "model.json", "params.pt"
NOTE_SECTION = ".note.cuvil.debugkey"
NOTE_NAME = b"cuvil\0"
NOTE_TYPE = 1
KEY_BYTES = 20  # the usual GNU build-id length


# ---- the debug key and the note ----------------------------------------------------
def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _versions() -> dict[str, str]:
    return {
        "cuvil": __version__,
        "llvm": ".".join(map(str, llvm.llvm_version_info)),
        "llvmlite": llvmlite.__version__,
        "torch": torch.__version__,
    }


def _target() -> dict[str, str]:
    cpu, features = host_cpu()
    return {"triple": target_triple(), "cpu": cpu, "features": features}


def debug_key(llvm_ir: str, target: dict, options: dict, versions: dict) -> str:
    """Hex fingerprint of what decides the machine code (not torch's version)."""
    fields = {
        "ir": _sha256(llvm_ir.encode()),
        "target": target,
        "options": options,
        "cuvil": versions["cuvil"],
        "llvm": versions["llvm"],
    }
    blob = json.dumps(fields, sort_keys=True).encode()
    return _sha256(blob)[: 2 * KEY_BYTES]


def _note_module(key: str) -> llvm.ModuleRef:
    """An LLVM module holding the ELF note ``cuvil`` / type 1 / desc = key bytes."""
    name = "".join(f"\\{b:02X}" for b in NOTE_NAME + b"\0\0")  # padded to 4 bytes
    desc = "".join(f"\\{b:02X}" for b in bytes.fromhex(key))
    text = f"""
target triple = "{target_triple()}"
@cuvil_debugkey = internal constant {{ i32, i32, i32, [8 x i8], [{KEY_BYTES} x i8] }}
  {{ i32 {len(NOTE_NAME)}, i32 {KEY_BYTES}, i32 {NOTE_TYPE},
     [8 x i8] c"{name}", [{KEY_BYTES} x i8] c"{desc}" }},
  section "{NOTE_SECTION}", align 4
@llvm.used = appending global [1 x ptr] [ptr @cuvil_debugkey], section "llvm.metadata"
"""
    return llvm.parse_assembly(text)


# ---- save --------------------------------------------------------------------------
def save(
    compiled: CompiledModule, path: str | os.PathLike, *, overwrite: bool = False
) -> Path:
    """Write `compiled` as a bundle directory at `path`; returns the path.

    An existing `path` is refused unless ``overwrite=True`` (then the bundle's files are
    replaced). Needs a C compiler driver (``cc``, or ``$CC``) to link the library.
    """
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
    program, options = compiled.program, compiled.options
    target, versions = _target(), _versions()
    key = debug_key(program.llvm_ir, target, options.to_dict(), versions)
    with tempfile.TemporaryDirectory(prefix="cuvil-aot-") as tmp:
        library = _build_library(program, options.opt, key, Path(tmp))
        params = {n: compiled._params[i] for i, n in enumerate(program.params)}
        torch.save(params, Path(tmp) / PARAMS)
        meta = _metadata(compiled, key, target, versions, library, Path(tmp) / PARAMS)
        (Path(tmp) / METADATA).write_text(json.dumps(meta, indent=2) + "\n")
        out.mkdir(parents=True, exist_ok=True)
        for name in (
            LIBRARY,
            PARAMS,
            METADATA,
        ):  # metadata last: it vouches for the rest
            shutil.move(str(Path(tmp) / name), out / name)
    return out


def _build_library(program, opt: int, key: str, tmp: Path) -> Path:
    mod = parse_and_optimize(program, opt)
    mod.link_in(_note_module(key))
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
        "ir_sha256": _sha256(program.llvm_ir.encode()),
        "target": target,
        "options": compiled.options.to_dict(),
        "versions": versions,
        "library": {"file": LIBRARY, "sha256": _sha256(library.read_bytes())},
        "params": {
            "file": PARAMS,
            "sha256": _sha256(params.read_bytes()),
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

    @property
    def debug_key(self) -> str:
        return self.metadata["debug_key"]


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
    _check_digest(library, meta["library"]["sha256"], "library")
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


def _check_digest(file: Path, expected: str, what: str) -> None:
    if not file.is_file():
        raise CuvilError(f"the saved model's {what} {file} is missing")
    actual = _sha256(file.read_bytes())
    if actual != expected:
        raise CuvilError(
            f"the saved model's {what} {file} does not match its metadata "
            f"(SHA-256 {actual[:16]}…, expected {expected[:16]}…); "
            "refusing to load it",
            hint="the file was modified or replaced; save the model again",
        )
