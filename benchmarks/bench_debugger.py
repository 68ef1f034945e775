"""What the debugger story costs: time to the first ``cuvil break`` stop, manifest size.

    python benchmarks/bench_debugger.py [--model samples/models/resnet18.py] [--rounds 3]

Targets (issue 13): GDB reaches the first ``cuvil break`` stop on ResNet-18 at O3 with
debug on in no more than 1.3x the wall time of the plain run of the same debuggee
(``samples/debug/run.py``: compile with debug on, first call; the plain run is timed to
its first ``cuvil-run`` line, a GDB run to its first ``cuvil: stopped``); the manifest
adds under 5% to an AOT library's size. Also timed: GDB without the script to the same
point (what GDB itself costs: reading the symbols of torch's libraries), and GDB with
``set auto-solib-add off`` (symbols of libllvmlite only). The cases alternate,
``--rounds`` times each. Prints medians and ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / "samples" / "debug" / "run.py"
GDB_FAST = [
    "set auto-solib-add off",
    "catch load llvmlite",
    "run",
    "sharedlibrary llvmlite",
]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DEBUGINFOD_URLS"}
    env["OMP_NUM_THREADS"] = "1"
    return env


def until(argv: list[str], marker: str) -> float:
    """Wall time from starting `argv` to the first output line containing `marker`."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        env=_env(),
    )
    try:
        for line in proc.stdout:
            if marker in line:
                return time.perf_counter() - t0
        raise SystemExit(f"'{marker}' never appeared: {' '.join(argv)}")
    finally:
        proc.kill()
        proc.wait()


def debuggee(model: str) -> list[str]:
    return [sys.executable, str(RUN), model]


def gdb(model: str, node: str | None, fast: bool) -> list[str]:
    """GDB over the debuggee: with the script and `cuvil break node`, or plain."""
    commands = ["set pagination off", "set debuginfod enabled off"]
    if node:
        commands += [
            f"source {ROOT / 'gdb_scripts' / 'cuvil.py'}",
            f"cuvil break {node}",
        ]
    commands += [*GDB_FAST, "continue"] if fast else ["run"]
    argv = ["gdb", "-batch", "-nx"]
    for c in commands:
        argv += ["-ex", c]
    return [*argv, "--args", *debuggee(model)]


def manifest_share(model: str) -> tuple[int, int]:
    """(manifest bytes, library bytes) of the model saved with debug on."""
    code = f"""
import json, sys
sys.path.insert(0, {str(ROOT)!r})
import cuvil
from cuvil_debug import load_model
from elftools.elf.elffile import ELFFile
m = load_model({model!r})
cm = cuvil.compile(m.model, m.inputs, options={{"debug": True, "opt_level": "O3"}})
cuvil.save(cm, {{tmp!r}}, overwrite=True)
with open({{tmp!r}} + "/model.so", "rb") as f:
    size = ELFFile(f).get_section_by_name(".cuvil.manifest").data_size
import os
print(json.dumps([size, os.path.getsize({{tmp!r}} + "/model.so")]))
"""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [sys.executable, "-c", code.replace("{tmp!r}", repr(tmp))],
            check=True,
            capture_output=True,
            text=True,
            env=_env(),
        )
    size, total = json.loads(out.stdout.splitlines()[-1])
    return size, total


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default=str(ROOT / "samples" / "models" / "resnet18.py"))
    p.add_argument("--node", default="layer2_0_relu")
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    cases = {  # name: (argv, the line that marks the point reached)
        "plain": (debuggee(args.model), "cuvil-run: 0"),
        "gdb, no script": (gdb(args.model, None, False), "cuvil-run: 0"),
        "gdb + cuvil break": (gdb(args.model, args.node, False), "cuvil: stopped"),
        "gdb lazy solibs + cuvil break": (
            gdb(args.model, args.node, True),
            "cuvil: stopped",
        ),
    }
    runs: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.rounds):
        for name, (argv, marker) in cases.items():
            runs[name].append(until(argv, marker))
    base = statistics.median(runs["plain"])
    for name, times in runs.items():
        med = statistics.median(times)
        rounded = [round(t, 2) for t in times]
        print(f"{name:<30} median {med:6.2f} s  ({med / base:.2f}x plain)  {rounded}")
    size, total = manifest_share(args.model)
    print(f"manifest {size} bytes of a {total}-byte library: {100 * size / total:.2f}%")


if __name__ == "__main__":
    main()
