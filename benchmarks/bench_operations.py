"""What the operations features cost (docs/OPERATIONS.md): the shared cache counters
(one flock'd update of stats.json per lookup or store) and cuvil.metrics per call.

    python benchmarks/bench_operations.py [--updates 2000] [--calls 20000] [--rounds 15]

Calls are timed in interleaved rounds (off, on, off, on, ...) of a tiny compiled model;
the median of the rounds is printed, so load on a shared machine hits both sides alike.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import torch

import cuvil
from cuvil.runtime import cachestats, objcache


def _per_update(root: Path, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        cachestats.record(root, hits=1)
    return (time.perf_counter() - start) / n


def _per_call(fn, x, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        fn(x)
    return (time.perf_counter() - start) / n


class Tiny(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--updates", type=int, default=2000)
    p.add_argument("--calls", type=int, default=20000)
    p.add_argument("--rounds", type=int, default=15)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _per_update(root, 50)  # warm up
        rounds = [_per_update(root, args.updates) for _ in range(5)]
        print(f"stats.json update: {statistics.median(rounds) * 1e6:.1f} us median")
        key = "a" * 64
        objcache.store_object(key, b"\x7fELF" + b"\0" * 4092)
        start = time.perf_counter()
        for _ in range(args.updates):
            objcache.load_object(key)
        hit = (time.perf_counter() - start) / args.updates
        print(f"cache hit lookup (4 KiB entry, counters and touch): {hit * 1e6:.1f} us")
    x = torch.randn(16)
    off = cuvil.compile(Tiny(), [x])
    cuvil.metrics.enable()
    on = cuvil.compile(Tiny(), [x])
    print(f"off: {type(off).__name__}, on: {type(on).__name__}")
    times: dict[str, list[float]] = {"off": [], "on": []}
    for _ in range(args.rounds):
        for name, fn in (("off", off), ("on", on)):
            times[name].append(_per_call(fn, x, args.calls))
    med = {k: statistics.median(v) * 1e6 for k, v in times.items()}
    print(
        f"call: off {med['off']:.2f} us, on {med['on']:.2f} us, "
        f"metrics add {med['on'] - med['off']:.2f} us per call (median of "
        f"{args.rounds} rounds of {args.calls})"
    )


if __name__ == "__main__":
    main()
