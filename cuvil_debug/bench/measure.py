"""The measurements of `cuvil-debug bench`: compile time (cold and warm object cache),
interleaved call latencies (thread-CPU and wall time per call), peak RSS.

Conventions of benchmarks/ and BENCHMARKS.md: the contenders run in one process,
interleaved (compiled, eager, then eager, compiled, ...), per-call times kept, medians
and percentiles reported. The CPU clock is the calling thread's CPU time
(``time.thread_time_ns``): on a loaded machine it counts the work, not the waiting. With
more than one kernel or torch thread the work is spread over threads, so the clock is
then the process's CPU time (``time.process_time_ns``); the report says which.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import torch

from cuvil.errors import CuvilError

__all__ = [
    "Samples",
    "CompileTimes",
    "scale_inputs",
    "example_batch",
    "timed_compiles",
    "time_calls",
    "cpu_clock",
    "Memory",
    "summary",
]

MIB = 1 << 20
_STATUS = Path("/proc/self/status")
_CLEAR_REFS = Path("/proc/self/clear_refs")


# ---- inputs -------------------------------------------------------------------------
def example_batch(inputs: Sequence[torch.Tensor]) -> int | None:
    """dim 0 of the first input with a dim (None: all are scalars)."""
    return next((int(x.shape[0]) for x in inputs if x.dim() > 0), None)


def scale_inputs(
    inputs: Sequence[torch.Tensor], batch: int
) -> tuple[torch.Tensor, ...]:
    """The example inputs with dim 0 = `batch` wherever dim 0 is the example's batch
    (the examples' rows repeated, then cut); other inputs stay as they are."""
    b0 = example_batch(inputs)
    if b0 is None:
        raise CuvilError(
            "--batch-sizes: the model's example inputs have no batch dim (all are "
            "scalars)",
            hint="leave out --batch-sizes",
        )
    out = []
    for x in inputs:
        if x.dim() == 0 or x.shape[0] != b0 or batch == b0:
            out.append(x)
            continue
        times = -(-batch // b0)
        out.append(x.repeat(times, *([1] * (x.dim() - 1)))[:batch].contiguous())
    return tuple(out)


# ---- compile time -------------------------------------------------------------------
@dataclass(frozen=True)
class CompileTimes:
    """Seconds of a compile with an empty object cache (`cold`) and again with the
    entry it left (`warm`); `warm_hit`: the warm compile found its object."""

    cold_s: float
    warm_s: float
    warm_hit: bool


@contextmanager
def _fresh_cache() -> Iterator[None]:
    """``$CUVIL_CACHE_DIR`` set to a new empty folder (objcache.cache_dir) inside."""
    saved = os.environ.get("CUVIL_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="cuvil-bench-cache-") as tmp:
        os.environ["CUVIL_CACHE_DIR"] = tmp
        try:
            yield
        finally:
            if saved is None:
                os.environ.pop("CUVIL_CACHE_DIR", None)
            else:
                os.environ["CUVIL_CACHE_DIR"] = saved


def timed_compiles(compile_fn: Callable[[], object]) -> tuple[object, CompileTimes]:
    """Compile cold then warm in a temporary cache; the warm build is returned."""
    with _fresh_cache():
        t0 = time.perf_counter()
        compile_fn()
        t1 = time.perf_counter()
        warm = compile_fn()
        t2 = time.perf_counter()
    hit = bool(getattr(getattr(warm, "jit", None), "cache_hit", False))
    return warm, CompileTimes(t1 - t0, t2 - t1, hit)


# ---- calls --------------------------------------------------------------------------
def cpu_clock(threads: int) -> tuple[str, Callable[[], int]]:
    """("thread", thread CPU ns) for one thread, else ("process", process CPU ns)."""
    if threads == 1:
        return "thread", time.thread_time_ns
    return "process", time.process_time_ns


@dataclass
class Samples:
    """Per-call nanoseconds of one contender, and the round each call was in."""

    wall: list[int] = field(default_factory=list)
    cpu: list[int] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)


def time_calls(
    contenders: dict[str, Callable[[], object]],
    *,
    warmup: int,
    rounds: int,
    calls: int,
    clock: Callable[[], int],
    tick: Callable[[str], None] = lambda _label: None,
) -> dict[str, Samples]:
    """`warmup` untimed calls each, then `rounds` rounds of `calls` timed calls per
    contender, the order alternating each round; `tick` after every round."""
    for fn in contenders.values():
        for _ in range(warmup):
            fn()
    samples = {name: Samples() for name in contenders}
    names = list(contenders)
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            fn, s = contenders[name], samples[name]
            for _ in range(calls):
                w0, c0 = time.perf_counter_ns(), clock()
                fn()
                c1, w1 = clock(), time.perf_counter_ns()
                s.wall.append(w1 - w0)
                s.cpu.append(c1 - c0)
                s.rounds.append(r)
        tick(f"round {r + 1}/{rounds}")
    return samples


def _percentiles(ns: list[int]) -> dict[str, float]:
    ms = sorted(v / 1e6 for v in ns)
    q = statistics.quantiles(ms, n=100, method="inclusive") if len(ms) > 1 else ms * 99
    return {
        "p50": statistics.median(ms),
        "p90": q[89],
        "p99": q[98],
        "mean": statistics.fmean(ms),
    }


def noise(s: Samples) -> float:
    """The spread of the rounds: (max - min) of the per-round CPU medians over their
    median (0.08: the same build's rounds differ by up to 8%)."""
    by_round: dict[int, list[int]] = {}
    for r, v in zip(s.rounds, s.cpu, strict=True):
        by_round.setdefault(r, []).append(v)
    medians = [statistics.median(vs) for vs in by_round.values()]
    mid = statistics.median(medians)
    return (max(medians) - min(medians)) / mid if mid > 0 else 0.0


def summary(s: Samples, batch: int) -> dict:
    """The JSON of one contender's samples (bench.schema.json ``timing``)."""
    wall = _percentiles(s.wall)
    return {
        "calls": len(s.wall),
        "cpu_ms": _percentiles(s.cpu),
        "wall_ms": wall,
        "throughput_per_s": batch * 1e3 / wall["mean"] if wall["mean"] > 0 else 0.0,
        "noise": noise(s),
    }


# ---- memory -------------------------------------------------------------------------
class Memory:
    """Resident set size from ``/proc/self/status`` (VmRSS now, VmHWM the high-water
    mark), the mark reset through ``/proc/self/clear_refs`` (``5``) before each phase
    where the kernel allows it; else ``getrusage``'s ``ru_maxrss`` (since the start of
    the process, torch's import included)."""

    def __init__(self) -> None:
        self.resettable = self._reset()
        self.source = (
            "VmHWM of /proc/self/status, reset per phase via /proc/self/clear_refs"
            if self.resettable
            else "getrusage ru_maxrss (whole process since its start)"
        )

    def _reset(self) -> bool:
        try:
            _CLEAR_REFS.write_text("5")
            return True
        except OSError:
            return False

    def reset(self) -> None:
        if self.resettable:
            self._reset()

    def _field(self, name: str) -> float | None:
        try:
            for line in _STATUS.read_text().splitlines():
                if line.startswith(f"{name}:"):
                    return int(line.split()[1]) * 1024 / MIB
        except OSError:
            pass
        return None

    def rss_mib(self) -> float:
        return self._field("VmRSS") or 0.0

    def peak_mib(self) -> float:
        if self.resettable:
            return self._field("VmHWM") or 0.0
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / MIB
