"""How fast is `cuvil-debug diff`, and how much memory does it keep?

    python benchmarks/bench_diff.py            # ResNet-18 + synthetic 1000-node graph
    python benchmarks/bench_diff.py --quick    # smaller synthetic graph
    python benchmarks/bench_diff.py --command --rounds 5 [--baseline /path/to/checkout]
        # the command `cuvil-debug diff samples/models/resnet18.py` from its start,
        # warm cache, bytecode cached: wall and CPU (the command and its children),
        # min and median;
        # with --baseline, that checkout's command measured in the same rounds,
        # interleaved (its own .venv/bin/cuvil-debug); with --inline, this checkout
        # with its float64 truth forked (even when busy) and computed in the process
    python benchmarks/bench_diff.py --phases --rounds 3
        # thread CPU time of each engine phase (ResNet-18, warm cache, in one
        # process; min and median of the rounds), of the imports, of the truth's
        # child, and each phase's wall; truth forked and inline in alternate runs

Target (issue 21): ResNet-18 full diff, warm cache, <= 3 s wall from the start of the
command on an idle machine; the engine's phases (--format json timings) say where the
rest goes.

Targets (issue: cuvil-debug diff):
- full diff of ResNet-18 (all stages, both modes) < 10 s on the 2-core machine;
- first divergence on a synthetic 1000-node graph < 10 s after compilation;
- memory: values kept by the diff <= 2x the model's activation memory.

Each case runs in a fresh process, first with an empty object cache (cold: every kernel
is compiled by LLVM) and then again with the cache the first run filled (warm: what a
second diff of the same model costs). Timings are printed per phase.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
import torch
from cuvil_debug import faults
from cuvil_debug.diff.engine import run_diff
from cuvil_debug.loader import load_model

case, nodes, fault = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if case == "resnet18":
    loaded = load_model({root!r} + "/samples/models/resnet18.py")
    model, inputs = loaded.model, loaded.inputs
else:
    class Chain(torch.nn.Module):
        # three FX nodes per step: mul, add, tanh
        def __init__(self, steps):
            super().__init__()
            self.steps = steps
        def forward(self, x):
            for i in range(self.steps):
                x = torch.tanh(x * 0.97 + 0.01 * (i % 7))
            return x
    model, inputs = Chain(nodes // 3), (torch.randn(64, 256),)
t0 = time.perf_counter()
eager_t = time.perf_counter()
with torch.no_grad():
    model(*inputs)
eager_t = time.perf_counter() - eager_t
specs = [faults.parse(fault)] if fault != "-" else []
t0 = time.perf_counter()
with faults.inject(*specs):
    report = run_diff(model, inputs)
total = time.perf_counter() - t0
print(json.dumps({{
    "total": total,
    "eager_forward": eager_t,
    "timings": report.timings,
    "memory": report.memory,
    "rows": len(report.rows),
    "first": None if report.first is None else [report.first.node, report.first.stage],
    "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}}))
"""


def run(case: str, nodes: int, fault: str, cache: str) -> dict:
    env = dict(os.environ, CUVIL_CACHE_DIR=cache, OMP_NUM_THREADS="2")
    code = CHILD.format(root=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", code, case, str(nodes), fault],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"{case} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


COMPILE = ("lower", "passes", "native-codegen", "native-compile", "twin-compile")


def show(label: str, r: dict) -> None:
    t = r["timings"]
    compile_s = sum(t.get(k, 0.0) for k in COMPILE)
    phases = ", ".join(f"{k} {v:.2f}" for k, v in t.items())
    mem = r["memory"]
    eager = max(mem.get("eager", 0), 1)
    kept = mem.get("eager", 0) + mem.get("peak_live", 0)
    print(f"{label}")
    print(
        f"  total {r['total']:.2f} s   after compilation {r['total'] - compile_s:.2f} s"
    )
    print(f"  phases: {phases}")
    print(f"  first divergence: {r['first']}   FX nodes: {r['rows']}")
    print(
        f"  memory: activations (eager values) {eager / 2**20:.1f} MiB, peak live "
        f"stage values {mem.get('peak_live', 0) / 2**20:.1f} MiB -> kept "
        f"{kept / eager:.2f}x activations; native arenas "
        f"{mem.get('arena', 0) / 2**20:.1f} MiB; float64 truth "
        f"{mem.get('truth', 0) / 2**20:.1f} MiB; twin builds {mem.get('twins', 0)}; "
        f"process max RSS {r['maxrss_mb']:.0f} MiB"
    )
    print(f"  eager forward alone: {r['eager_forward'] * 1e3:.1f} ms")


def command(checkout: Path, cache: str, model: str, extra: dict | None = None) -> dict:
    """One `cuvil-debug diff MODEL --format json` of `checkout`: wall, CPU (user+sys
    of the command and every process it waited for), the engine's phases."""
    exe = checkout / ".venv" / "bin" / "cuvil-debug"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    # bytecode cached (in a private folder), as an installed package has it: without
    # it every command compiles Cuvil's source again (~0.6 s of CPU)
    env.update(CUVIL_CACHE_DIR=cache, PYTHONPYCACHEPREFIX=cache + "-pyc")
    env.update(extra or {})
    start = time.perf_counter()
    proc = subprocess.Popen(
        [str(exe), "diff", str(checkout / model), "--format", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=checkout,
    )
    out, _ = proc.communicate()
    wall = time.perf_counter() - start
    doc = json.loads(out) if out.strip() else {}
    return {"wall": wall, "timings": doc.get("timings", {}), "code": proc.returncode}


def commands(args) -> None:
    """--command: interleaved rounds of this checkout (and --baseline's)."""
    import resource
    import statistics

    trees = [("this", ROOT, {})]  # the truth forked or not as the load allows
    if args.inline:  # the truth forked whatever the load, and computed in the process
        trees = [
            ("this, truth forked", ROOT, {"CUVIL_DIFF_TRUTH": "fork"}),
            ("this, truth inline", ROOT, {"CUVIL_DIFF_TRUTH": "inline"}),
        ]
    if args.baseline:
        trees.append(("baseline", Path(args.baseline), {}))
    model = "samples/models/resnet18.py"
    seen: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in trees}
    phases: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as cache:
        for _name, tree, extra in trees:
            command(tree, cache + "/" + tree.name, model, extra)  # fills the cache
        for _ in range(args.rounds):
            for name, tree, extra in trees:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                r = command(tree, cache + "/" + tree.name, model, extra)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (after.ru_utime - before.ru_utime) + (
                    after.ru_stime - before.ru_stime
                )
                seen[name].append((r["wall"], cpu))
                phases[name] = r["timings"]
    print(f"load average {_load()} at the end")
    for name, runs in seen.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(
            f"{name}: wall min {min(walls):.2f} s, median {statistics.median(walls):.2f} s;"
            f" CPU min {min(cpus):.2f} s, median {statistics.median(cpus):.2f} s"
            f" ({len(runs)} warm runs)"
        )
        engine = sum(phases[name].values())
        print(
            "  phases (last run): "
            + ", ".join(f"{k} {v:.2f}" for k, v in phases[name].items())
            + f"; engine total {engine:.2f} s"
        )


PHASES_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
t0 = time.thread_time()
import torch
from cuvil_debug.diff import engine
from cuvil_debug.loader import load_model
imports = time.thread_time() - t0
cpu = {{}}
start, lap = engine._Clock.start, engine._Clock.lap
def timed_start(self, phase):
    self.cpu0 = time.thread_time()
    return start(self, phase)
def timed_lap(self, name):
    now = time.thread_time()
    cpu[name] = cpu.get(name, 0.0) + now - getattr(self, "cpu0", now)
    self.cpu0 = now
    return lap(self, name)
engine._Clock.start, engine._Clock.lap = timed_start, timed_lap
loaded = load_model({root!r} + "/samples/models/resnet18.py")
t1, w1 = time.thread_time(), time.perf_counter()
report = engine.run_diff(loaded.model, loaded.inputs)
engine_cpu, engine_wall = time.thread_time() - t1, time.perf_counter() - w1
child = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({{"imports": imports, "engine": engine_cpu, **cpu,
    "truth child": child.ru_utime + child.ru_stime, "engine wall": engine_wall,
    **{{"wall " + k: v for k, v in report.timings.items()}}}}))
"""


def phases(args) -> None:
    """--phases: thread CPU per phase (and the wall of each, the truth child's CPU),
    min and median of the rounds (warm cache); the truth computed in a forked child
    (the default) and in the process (CUVIL_DIFF_TRUTH=inline) in alternate runs."""
    import statistics

    modes = ("fork", "inline")
    seen: dict[str, dict[str, list[float]]] = {m: {} for m in modes}
    with tempfile.TemporaryDirectory() as tmp:
        cache = tmp + "/cache"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(CUVIL_CACHE_DIR=cache, PYTHONPYCACHEPREFIX=cache + "-pyc")
        for k in range(args.rounds + 1):  # the first fills the cache
            for mode in modes:
                out = subprocess.run(
                    [sys.executable, "-c", PHASES_CHILD.format(root=str(ROOT))],
                    env=dict(env, CUVIL_DIFF_TRUTH=mode),
                    capture_output=True,
                    text=True,
                    check=True,
                )
                if k:
                    result = json.loads(out.stdout.splitlines()[-1])
                    for name, v in result.items():
                        seen[mode].setdefault(name, []).append(v)
    print(f"seconds, min / median of {args.rounds} warm runs (load {_load()}):")
    print(f"  {'phase':22s} " + " ".join(f"{m:>15s}" for m in modes))
    for name in seen["fork"]:
        cells = []
        for mode in modes:
            v = seen[mode].get(name, [0.0])
            cells.append(f"{min(v):6.2f} / {statistics.median(v):5.2f}")
        print(f"  {name:22s} " + " ".join(cells))


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--command", action="store_true", help="time the command itself")
    ap.add_argument("--phases", action="store_true", help="CPU time of each phase")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--baseline", help="another checkout to time in the same rounds")
    ap.add_argument(
        "--inline",
        action="store_true",
        help="--command: this checkout twice, CUVIL_DIFF_TRUTH=fork (the float64 truth "
        "in a forked child even on a busy machine) and =inline (in the process), "
        "interleaved",
    )
    args = ap.parse_args()
    if args.command:
        commands(args)
        return
    if args.phases:
        phases(args)
        return
    nodes = 300 if args.quick else 1000
    cases = [
        ("resnet18", 0, "-", "ResNet-18, clean compile"),
        ("resnet18", 0, "kernel:layer3_0_relu", "ResNet-18, wrong fused kernel"),
        (
            "chain",
            nodes,
            f"kernel:tanh_{nodes // 3 - 20}",
            f"synthetic {nodes}-node chain",
        ),
    ]
    for case, n, fault, label in cases:
        with tempfile.TemporaryDirectory() as cache:
            show(f"{label} [cold cache]", run(case, n, fault, cache))
            show(f"{label} [warm cache]", run(case, n, fault, cache))


if __name__ == "__main__":
    main()
