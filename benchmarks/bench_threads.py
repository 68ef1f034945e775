"""Cuvil's thread pool: 2-thread scaling, and whether it and torch's OpenMP pool slow each
other down in one process.

    python benchmarks/bench_threads.py [--repeat 40] [--only resnet18,transformer_block]

Per sample model (wall-clock medians, interleaved, IQR in brackets):

- ``cuvil 1t`` / ``cuvil 2t``: the model compiled with num_threads 1 and 2; speed-up.
- ``eager 2t alone`` against ``eager 2t after cuvil``: torch eager with 2 OpenMP threads,
  timed alone and then each call right after a 2-thread Cuvil call (Cuvil's workers are
  still spinning down). A ratio near 1.0 means Cuvil's pool does not slow torch.
- ``cuvil 2t after eager`` against ``cuvil 2t``: the reverse (torch's OpenMP workers
  spin after each parallel region and can take the core Cuvil's worker wants).

Wall-clock time is the right clock for 2 threads (thread CPU time would hide the second
thread's work), so a busy machine shows up directly: read the IQR.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import time
from pathlib import Path

import torch

import cuvil

ROOT = Path(__file__).resolve().parents[1]


def load(name: str):
    spec = importlib.util.spec_from_file_location(
        name, ROOT / "samples/models" / f"{name}.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.Model().eval(), mod.example_inputs()


def _stats(ts: list[float]) -> str:
    q = statistics.quantiles(ts, n=4)
    return f"{statistics.median(ts) * 1e3:8.3f} [{q[0] * 1e3:.3f}-{q[2] * 1e3:.3f}]"


def timed(fn, args) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def run(name: str, repeat: int) -> None:
    model, x = load(name)
    builds = {
        t: cuvil.compile(model, list(x), options={"num_threads": t}) for t in (1, 2)
    }
    times: dict[str, list[float]] = {
        k: [] for k in ("c1", "c2", "e_alone", "e_after", "c_after")
    }
    with torch.no_grad():
        for _ in range(3):
            builds[1](*x), builds[2](*x), model(*x)
        for _ in range(repeat):  # Cuvil 1 vs 2 threads, torch idle (1 thread)
            torch.set_num_threads(1)
            times["c1"].append(timed(builds[1], x))
            times["c2"].append(timed(builds[2], x))
        torch.set_num_threads(2)
        for _ in range(repeat):  # eager alone, then eager right after Cuvil (and back)
            time.sleep(0.002)  # let Cuvil's workers go to sleep
            times["e_alone"].append(timed(model, x))
            builds[2](*x)
            times["e_after"].append(timed(model, x))
            times["c_after"].append(timed(builds[2], x))
    m = {k: statistics.median(v) for k, v in times.items()}
    print(f"## {name}")
    print(f"cuvil 1t            {_stats(times['c1'])} ms")
    print(
        f"cuvil 2t            {_stats(times['c2'])} ms   speed-up {m['c1'] / m['c2']:.2f}x"
    )
    print(f"eager 2t alone      {_stats(times['e_alone'])} ms")
    print(
        f"eager 2t after cuvil{_stats(times['e_after'])} ms   ratio {m['e_after'] / m['e_alone']:.2f}"
    )
    print(
        f"cuvil 2t after eager{_stats(times['c_after'])} ms   ratio {m['c_after'] / m['c2']:.2f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=40)
    ap.add_argument("--only", default="resnet18,transformer_block")
    args = ap.parse_args()
    print(
        f"# {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, torch {torch.__version__}"
    )
    for name in args.only.split(","):
        run(name, args.repeat)


if __name__ == "__main__":
    main()
