"""Tampering with saved bundles: small models to save, and a probe that loads and calls
a (mutated) bundle in a forked child, so a crash is an outcome, not the test's death.

Used by tests/runtime/test_bundle_tampering.py and tests/fuzz/test_fuzz_bundle.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path

import torch
from torch import nn

import cuvil
from cuvil.runtime import bundle_fs

PROBE_TIMEOUT_S = 120  # a hang is an outcome too, but only after this long


class Tiny(nn.Module):
    """Linear -> activation -> Linear: `act` picks a different model with the same ABI."""

    def __init__(self, act: str = "relu", hidden: int = 16, seed: int = 0) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.fc1, self.fc2 = nn.Linear(8, hidden), nn.Linear(hidden, 4)
        self.act = act

    def forward(self, x):
        h = self.fc1(x)
        h = torch.relu(h) if self.act == "relu" else torch.tanh(h)
        return self.fc2(h)


INPUT = (torch.linspace(-2.0, 2.0, 8).reshape(1, 8),)


def save_tiny(path: Path, act="relu", hidden=16, seed=0, **save_kw) -> Path:
    model = Tiny(act, hidden, seed).eval()
    compiled = cuvil.compile(model, INPUT, options={"opt_level": "O1"})
    return cuvil.save(compiled, path, **save_kw)


def expected_output(act="relu", hidden=16, seed=0) -> torch.Tensor:
    with torch.no_grad():
        return Tiny(act, hidden, seed).eval()(*INPUT)


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_meta(bundle: Path) -> dict:
    return json.loads((bundle / "model.json").read_text())


def write_meta(bundle: Path, meta) -> None:
    (bundle / "model.json").write_text(json.dumps(meta, indent=2))


def update_digests(bundle: Path) -> None:
    """Rewrite model.json's SHA-256s to match the files now in the bundle (what a
    tamperer who knows the format does)."""
    meta = read_meta(bundle)
    for field in ("library", "params"):
        file = bundle / "model.so" if field == "library" else bundle / "params.pt"
        if file.is_file():
            meta[field]["sha256"] = sha256_file(file)
    write_meta(bundle, meta)


def constructor_library(out: Path, marker: Path) -> Path:
    """A shared library whose ELF constructor writes `marker` (built with cc)."""
    src = out.with_suffix(".c")
    src.write_text(
        "#include <stdio.h>\n"
        "__attribute__((constructor)) static void cuvil_test_ctor(void) {\n"
        f'  FILE *f = fopen("{marker}", "w");\n'
        '  if (f) { fputs("constructor ran", f); fclose(f); }\n'
        "}\n"
        "long cuvil_main(void) { return 0; }\n"
    )
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-shared", "-fPIC", "-o", out, src], check=True, timeout=120)
    return out


def probe(bundle: Path, expected: torch.Tensor, **load_kw) -> tuple[str, str]:
    """(outcome, detail) of ``cuvil.load(bundle, **load_kw)(*INPUT)`` run in a forked
    child: ``refused`` (a CuvilError), ``correct`` / ``wrong`` (it loaded and ran),
    ``error`` (another exception: not a clean refusal), ``crash`` (a signal or no
    answer), ``hang``."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_end)
        _child(write_end, bundle, expected, load_kw)
    os.close(write_end)
    data, status = _collect(pid, read_end)
    if status == "hang":
        return "hang", ""
    if os.WIFSIGNALED(status):
        return "crash", signal.Signals(os.WTERMSIG(status)).name
    try:
        outcome, detail = json.loads(data.decode())
    except ValueError:
        return "crash", f"exit {os.WEXITSTATUS(status)}, no answer"
    return outcome, detail


def _child(fd: int, bundle: Path, expected, load_kw) -> None:
    code = 0
    try:
        try:
            out = cuvil.load(bundle, **load_kw)(*INPUT)
            same = isinstance(out, torch.Tensor) and torch.allclose(
                out, expected, rtol=1e-5, atol=1e-6
            )
            answer = ["correct" if same else "wrong", ""]
        except cuvil.CuvilError as e:
            answer = ["refused", str(e).splitlines()[0]]
        except BaseException as e:  # noqa: BLE001 - the point: any other exception
            answer = ["error", f"{type(e).__name__}: {e}"[:300]]
        os.write(fd, json.dumps(answer).encode())
    except BaseException:  # noqa: BLE001
        code = 1
    finally:
        bundle_fs._remove_private(os.getpid())  # atexit does not run after _exit
        os._exit(code)


def _collect(pid: int, fd: int):
    chunks, deadline = [], time.monotonic() + PROBE_TIMEOUT_S
    with os.fdopen(fd, "rb") as pipe:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return b"", "hang"
            ready, _, _ = select.select([pipe], [], [], left)
            if ready:
                chunk = os.read(pipe.fileno(), 65536)
                if not chunk:
                    break
                chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    return b"".join(chunks), status


def fresh_copy(bundle: Path, where: Path) -> Path:
    """A copy of `bundle` in a new directory under `where` (symlinks kept as links)."""
    where.mkdir(parents=True, exist_ok=True)
    dst = where / "bundle"
    shutil.copytree(bundle, dst, symlinks=True)
    return dst


ABI_SECTION = ".cuvil.abi"


def library_with_abi_of(library: Path, donor: Path, out: Path) -> Path:
    """`library` plus a copy of `donor`'s ABI section: a forger's first try."""
    dump = out.with_suffix(".abi")
    objcopy = os.environ.get("OBJCOPY", "objcopy")
    subprocess.run(
        [objcopy, "-O", "binary", f"--only-section={ABI_SECTION}", donor, dump],
        check=True,
        timeout=120,
    )
    cmd = [objcopy, f"--add-section={ABI_SECTION}={dump}", library, out]
    subprocess.run(cmd, check=True, timeout=120)
    return out


def build_context(root: Path, **save_kw) -> tuple[Path, dict]:
    """The bundle to tamper with (`save_kw` for cuvil.save) and the mutations' ctx."""
    bundle = save_tiny(root / "base" / "bundle", **save_kw)
    marker = root / "constructor-ran"
    ctor = constructor_library(root / "ctor.so", marker)
    ctx = {
        "other": save_tiny(root / "other", act="tanh", seed=1),
        "wide": save_tiny(root / "wide", hidden=32),
        "small": save_tiny(root / "small", hidden=4, seed=3),
        "ctor": ctor,
        "ctor_abi": library_with_abi_of(ctor, bundle / "model.so", root / "ctor2.so"),
        "outside": root / "outside",
        "marker": marker,
    }
    return bundle, ctx
