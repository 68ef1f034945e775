"""Runs captures in worker processes: a few workers each take a batch of models (one
torch import per worker), and a model that hangs or kills its worker is recorded as
`timeout` or `crash` while a fresh worker carries on with the rest."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from ..isolation import FORGED, Channel, describe_exit
from .collect import collect

__all__ = ["Job", "run_jobs", "run_batch", "run_in_process"]

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
    """No isolation: fastest, for tests and trusted models (their Python-level
    prints go to stderr, not into a report on stdout)."""
    with contextlib.redirect_stdout(sys.stderr):
        return [collect(**j.collect_args()) for j in jobs]


def run_jobs(
    jobs: Sequence[Job],
    workers: int = 2,
    timeout: float = 60.0,
    max_memory: int | None = None,
) -> list[dict]:
    """Records in job order; each batch runs in its own worker process
    (`max_memory`: bytes each worker may map beyond its start, None: no cap)."""
    batches = [list(jobs[i::workers]) for i in range(max(1, workers))]
    with ThreadPoolExecutor(len(batches)) as pool:
        done = pool.map(
            lambda b: run_batch(b, timeout, max_memory), [b for b in batches if b]
        )
    by_index = {i: r for part in done for i, r in part.items()}
    return [by_index[j.index] for j in jobs]


def run_batch(
    batch: list[Job], timeout: float, max_memory: int | None, cwd: str | None = None
) -> dict:
    """The per-model job of every executor: records by job index, each batch in a
    worker process started in `cwd` (None: here); a model that hangs or kills its
    worker is recorded as `timeout` / `crash` and a fresh worker takes the rest."""
    results: dict[int, dict] = {}
    while len(results) < len(batch):
        pending = [j for j in batch if j.index not in results]
        results.update(_one_worker(pending, timeout, max_memory, cwd))
    return results


def _worker_argv(max_memory: int | None) -> list[str]:
    argv = [sys.executable, "-m", "cuvil_debug.triage.worker"]
    return argv + (["--max-memory", str(max_memory)] if max_memory else [])


def _one_worker(
    jobs: list[Job], timeout: float, max_memory: int | None, cwd: str | None = None
) -> dict:
    """Runs jobs until all finish or one hangs / crashes (recorded, then we return).
    The worker's stdout and stderr (the models' output) go to a file read here."""
    channel = Channel()
    with tempfile.TemporaryFile("a+b") as out:
        proc = subprocess.Popen(
            _worker_argv(max_memory),
            stdin=subprocess.PIPE,
            stdout=out,
            stderr=out,
            pass_fds=channel.pass_fds,
            env=channel.env(),
            cwd=cwd,
        )
        channel.start()
        proc.stdin.write("".join(j.as_json() + "\n" for j in jobs).encode())
        proc.stdin.close()
        drained = _Drain(jobs, timeout)
        drained.run(channel.events)
        _stop(proc)
        results = drained.results
        if drained.lost is not None:
            results[drained.lost] = _crash(proc, out, drained.offset(drained.lost))
        for job in jobs:
            if job.index in results:
                results[job.index].setdefault("spec", job.spec)
                results[job.index].setdefault("frontend", job.frontend)
                _attach_output(results[job.index], out, drained.spans.get(job.index))
        return results


OUTPUT_CHARS = 2000  # of a model's own output kept in its record (the last ones)


class _Drain:
    """Reads a worker's events: `results` by job index; `lost`, the job that was
    running when the worker died (or None); `spans`, where each job's output lies in
    the output file; lines without the nonce are counted against the running job."""

    def __init__(self, jobs: list[Job], timeout: float) -> None:
        self.jobs = jobs
        self.limits = {
            j.index: timeout if j.timeout is None else j.timeout for j in jobs
        }
        self.results: dict[int, dict] = {}
        self.lost: int | None = None
        self.spans: dict[int, list] = {}
        self.forged: dict[int | None, int] = {}

    def offset(self, index: int) -> int:
        return self.spans.get(index, [0])[0]

    def run(self, events: queue.Queue) -> None:
        running, wait = None, STARTUP_S + max(self.limits.values())
        while len(self.results) < len(self.jobs):
            try:
                event = events.get(timeout=wait)
            except queue.Empty:
                if running is None:  # stuck before any job started: blame the next one
                    self.lost = self._first_pending()
                    return
                self.results[running] = {
                    "status": "timeout",
                    "message": f"capture did not finish within "
                    f"{self.limits[running]:g} s",
                }
                return
            if event is None:  # the worker died
                self.lost = running if running is not None else self._first_pending()
                return
            if event["event"] == FORGED or "forged_prefix" in event:
                self.forged[running] = self.forged.get(running, 0) + 1
            if event["event"] == "start":
                running, wait = event["index"], self.limits[event["index"]]
                self.spans[running] = [max(0, event.get("out", 0)), None]
            elif event["event"] == "result":
                index = event["index"]
                self.spans.setdefault(index, [0, None])[1] = event.get("out")
                self.results[index], running = self._checked(index, event), None

    def _checked(self, index: int, event: dict) -> dict:
        record, forged = event["record"], self.forged.get(index, 0)
        if not forged:
            return record
        return {
            "spec": record.get("spec"),
            "frontend": record.get("frontend"),
            "status": "error",
            "message": f"the model wrote to the result channel: {forged} line(s) "
            f"without this run's nonce were rejected (its capture itself ended "
            f"{record.get('status')!r})",
        }

    def _first_pending(self) -> int | None:
        return next((j.index for j in self.jobs if j.index not in self.results), None)


def _read_output(out, start: int, end: int | None) -> str:
    out.flush()
    size = os.fstat(out.fileno()).st_size
    end = size if end is None or end < start else min(end, size)
    data = os.pread(out.fileno(), end - start, start) if end > start else b""
    return data.decode("utf-8", "replace")


def _attach_output(record: dict, out, span: list | None) -> None:
    """The model's own output during its capture (its last OUTPUT_CHARS) as
    record["output"]; none when it printed nothing."""
    if span is None:
        return
    text = _read_output(out, span[0], span[1])
    if not text.strip():
        return
    if len(text) > OUTPUT_CHARS:
        cut = len(text) - OUTPUT_CHARS
        text = f"[{cut} earlier characters cut]\n" + text[-OUTPUT_CHARS:]
    record["output"] = text


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def _crash(proc: subprocess.Popen, out, offset: int) -> dict:
    tail = _read_output(out, offset, None)[-800:].strip()
    return {
        "status": "crash",
        "message": describe_exit(proc.returncode) + (f": {tail}" if tail else ""),
    }
