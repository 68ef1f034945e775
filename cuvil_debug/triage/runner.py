"""Runs captures in worker processes: a few workers each take a batch of models (one
torch import per worker), and a model that hangs or kills its worker is recorded as
`timeout` or `crash` while a fresh worker carries on with the rest."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from .collect import collect

__all__ = ["Job", "run_jobs", "run_in_process"]

STARTUP_S = 120.0  # importing torch in a fresh worker on a loaded CI machine


@dataclass(frozen=True)
class Job:
    index: int
    spec: str
    frontend: str = "fx"
    entry: str | None = None
    stage: str = "lower"
    timeout: float | None = None  # this job's own limit in seconds (None: run_jobs')
    cuvil_leaves: bool = False
    no_grad: bool = False

    def collect_args(self) -> dict:
        """collect()'s arguments (what a worker receives)."""
        return {
            "spec": self.spec,
            "frontend": self.frontend,
            "entry": self.entry,
            "stage": self.stage,
            "cuvil_leaves": self.cuvil_leaves,
            "no_grad": self.no_grad,
        }

    def as_json(self) -> str:
        return json.dumps({"index": self.index, "collect": self.collect_args()})


def run_in_process(jobs: Sequence[Job]) -> list[dict]:
    """No isolation: fastest, for tests and trusted models."""
    return [collect(**j.collect_args()) for j in jobs]


def run_jobs(
    jobs: Sequence[Job], workers: int = 2, timeout: float = 60.0
) -> list[dict]:
    """Records in job order; each batch runs in its own worker process."""
    batches = [list(jobs[i::workers]) for i in range(max(1, workers))]
    with ThreadPoolExecutor(len(batches)) as pool:
        done = pool.map(lambda b: _run_batch(b, timeout), [b for b in batches if b])
    by_index = {i: r for part in done for i, r in part.items()}
    return [by_index[j.index] for j in jobs]


def _run_batch(batch: list[Job], timeout: float) -> dict[int, dict]:
    results: dict[int, dict] = {}
    while len(results) < len(batch):
        pending = [j for j in batch if j.index not in results]
        results.update(_one_worker(pending, timeout))
    return results


def _one_worker(jobs: list[Job], timeout: float) -> dict[int, dict]:
    """Runs jobs until all finish or one hangs / crashes (recorded, then we return)."""
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cuvil_debug.triage.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
        events = _reader(proc)
        proc.stdin.write("".join(j.as_json() + "\n" for j in jobs))
        proc.stdin.close()
        results, lost = _drain(events, jobs, timeout)
        _stop(proc)
        if lost is not None:
            results[lost] = _crash(proc, err)
        for job in jobs:
            if job.index in results:
                results[job.index].setdefault("spec", job.spec)
                results[job.index].setdefault("frontend", job.frontend)
        return results


def _reader(proc: subprocess.Popen) -> queue.Queue:
    events: queue.Queue = queue.Queue()

    def pump() -> None:
        for line in proc.stdout:
            events.put(json.loads(line))
        events.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return events


def _drain(events: queue.Queue, jobs: list[Job], timeout: float):
    """(results, index of the job that killed the worker or None)."""
    results: dict[int, dict] = {}
    limits = {j.index: timeout if j.timeout is None else j.timeout for j in jobs}
    running, wait = None, STARTUP_S + max(limits.values())
    while len(results) < len(jobs):
        try:
            event = events.get(timeout=wait)
        except queue.Empty:
            if running is None:  # stuck before any job started: blame the next one
                return results, _first_pending(jobs, results)
            results[running] = {
                "status": "timeout",
                "message": f"capture did not finish within {limits[running]:g} s",
            }
            return results, None
        if event is None:  # the worker died
            return results, running if running is not None else _first_pending(
                jobs, results
            )
        if event["event"] == "start":
            running = event["index"]
            wait = limits[running]
        else:
            results[event["index"]], running = event["record"], None
    return results, None


def _first_pending(jobs: list[Job], results: dict) -> int | None:
    return next((j.index for j in jobs if j.index not in results), None)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def _crash(proc: subprocess.Popen, err) -> dict:
    err.seek(0)
    tail = err.read()[-800:].strip()
    return {
        "status": "crash",
        "message": f"the capture process died (exit code "
        f"{proc.returncode}){': ' + tail if tail else ''}",
    }
