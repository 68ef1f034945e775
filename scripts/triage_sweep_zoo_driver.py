"""The command line, worker and recipe check shared by the zoo sweeps
(scripts/triage_sweep_zoo.py, _zoo3.py, _zoo4.py): each sweep gives its rendering of a
case, its shim and its recipe names; capturing, signatures, the sweep loop, the summary
and the re-capture check are scripts/triage_sweep.py's."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import triage_sweep as ts


@dataclass(frozen=True)
class SweepSet:
    render: Callable[[str, str], str]  # (case, mode) -> the model file's text
    shim: Path  # samples/failures/<set>/_shim.py
    family: Callable[[str], str]
    names: list[str]  # every case, in sweep order
    modes: tuple[str, ...]
    out: Path  # default --out
    script: Path  # the sweep's own script: ts.sweep runs it with --worker


def _write(s: SweepSet, folder: Path, name: str, mode: str) -> Path:
    """Write (and ruff-format, so the kept sample is byte-for-byte the file that ran)."""
    path = folder / f"{name}__{mode.replace('-', '_')}.py"
    path.write_text(s.render(name, mode))
    ruff = Path(sys.executable).parent / "ruff"
    ruff = str(ruff) if ruff.exists() else shutil.which("ruff")
    if ruff:
        subprocess.run([ruff, "format", "-q", str(path)], check=False)
    return path


def _cases_dir(out: Path) -> Path:
    cases = out / "cases"
    cases.mkdir(parents=True, exist_ok=True)
    (cases / "_shim.py").write_text(ts.SHIM.read_text())  # the library shim itself
    return cases


def _import_shim(folder: Path) -> None:
    sys.path.insert(0, str(folder))
    import _shim  # noqa: F401


def worker(s: SweepSet, name: str, modes: list[str], out: Path, timeout: int) -> None:
    """One model, every mode; one JSON line per case on stdout."""
    _import_shim(s.shim.parent)
    cases = _cases_dir(out)
    try:
        ts.load_file(_write(s, cases, name, "export")).Model()
    except Exception as e:  # noqa: BLE001
        row = {"name": name, "mode": "build", "status": "build-error"}
        print(json.dumps(row | ts.describe(e)), flush=True)
        return
    for mode in modes:
        r = ts.run_case(_write(s, cases, name, mode), mode, timeout)
        r.update(name=name, mode=mode)
        print(json.dumps(r), flush=True)


def try_eager(s: SweepSet, names: list[str], out: Path) -> int:
    """Build each recipe and run it eagerly (no capture), in this process: the check
    made on the recipes before a sweep."""
    import torch

    _import_shim(s.shim.parent)
    cases, bad = _cases_dir(out), 0
    for name in names:
        t = time.time()
        try:
            mod = ts.load_file(_write(s, cases, name, "export"))
            with torch.no_grad():
                y = mod.Model()(*mod.example_inputs())
            what = type(y).__name__
        except Exception as e:  # noqa: BLE001
            bad += 1
            head = str(e).splitlines()[0][:150] if str(e) else ""
            what = f"FAILED {type(e).__name__}: {head}"
        print(f"{name:24} {time.time() - t:6.2f}s  {what}", flush=True)
    return 1 if bad else 0


def _parser(s: SweepSet, doc: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--out", type=Path, default=s.out)
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--modes", default=",".join(s.modes))
    ap.add_argument("--timeout", type=int, default=60, help="seconds per capture")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--try-eager", action="store_true", help="build + eager forward")
    ap.add_argument(
        "--check", type=Path, help="re-capture the labelled samples in this folder"
    )
    ap.add_argument(
        "--summary", type=Path, nargs="+", help="print counts of results.jsonl files"
    )
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--check-one", type=Path, help=argparse.SUPPRESS)
    return ap


def main(s: SweepSet, doc: str) -> int:
    a = _parser(s, doc).parse_args()
    modes = a.modes.split(",")
    if a.worker:
        worker(s, a.worker, modes, a.out, a.timeout)
        return 0
    if a.check_one:
        _import_shim(a.check_one.parent)
        print(json.dumps(ts.run_case(a.check_one, modes[0], a.timeout)))
        return 0
    if a.summary:
        ts.summary(a.summary, family_of=s.family, modes=s.modes)
        return 0
    if a.check:
        return ts.check(a.check, a.timeout, script=s.script)
    names = a.only.split(",") if a.only else s.names
    if a.list:
        print("\n".join(names))
        return 0
    if a.try_eager:
        return try_eager(s, names, a.out)
    ts.sweep(names, modes, a.out, a.timeout, script=s.script, family_of=s.family)
    return 0
