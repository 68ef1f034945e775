"""Worker processes that survive what they run: a segfault is an outcome, not the end.

``Pool(jobs)`` starts ``jobs`` workers (``python -m cuvil_debug.fuzz.worker``), each
reading one JSON request per line on stdin and answering one JSON line on stdout. A
worker that dies (a signal from native code, an abort) or exceeds ``timeout`` seconds on
one request is killed and replaced; its request is answered with a ``crash`` record
(``worker died: SIGSEGV`` / ``timeout``) for every configuration it asked for. Workers
are replaced after ``recycle`` requests too, so the JIT's memory and dynamo's caches do
not grow without bound.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Pool"]


@dataclass
class _Worker:
    proc: subprocess.Popen
    request: dict | None = None
    started: float = 0.0
    served: int = 0
    buffer: bytes = field(default=b"")
    stage: str = ""  # "compile" once the request's eager part is done


def _died(w: _Worker, why: str) -> dict[str, Any]:
    """The record of `w`'s request: a crash of every configuration if it died while
    compiling, torch's own if it died drawing the graph or running it eagerly."""
    req = w.request or {}
    ours = w.stage == "compile"
    where = "compiling this graph" if ours else "drawing or running this graph eagerly"
    outcome, key = ("crash", f"worker {why}") if ours else ("torch", f"torch {why}")
    detail = f"the worker process {why} while {where}"
    seconds = time.monotonic() - w.started
    results = {
        c: {"outcome": outcome, "key": key, "detail": detail, "seconds": seconds}
        for c in req.get("configs", [])
    }
    return {
        "id": req.get("id"),
        "seed": req.get("seed"),
        "results": results,
        "died": why,
    }


class Pool:
    def __init__(
        self, jobs: int, timeout: float = 900.0, recycle: int = 200, env=None
    ) -> None:
        self.jobs, self.timeout, self.recycle = jobs, timeout, recycle
        self.env = {**os.environ, "CUVIL_CACHE": "0", **(env or {})}
        self.workers: list[_Worker] = []
        self.sel = selectors.DefaultSelector()

    def _start(self) -> _Worker:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cuvil_debug.fuzz.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=self.env,
        )
        w = _Worker(proc)
        os.set_blocking(proc.stdout.fileno(), False)
        self.sel.register(proc.stdout, selectors.EVENT_READ, w)
        return w

    def _stop(self, w: _Worker) -> None:
        self.sel.unregister(w.proc.stdout)
        if w.proc.poll() is None:
            w.proc.kill()
        w.proc.wait()
        for stream in (w.proc.stdin, w.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass

    def _send(self, w: _Worker, request: dict) -> bool:
        w.request, w.started, w.stage = request, time.monotonic(), ""
        try:
            w.proc.stdin.write((json.dumps(request) + "\n").encode())
            w.proc.stdin.flush()
        except OSError:
            return False
        return True

    def _replace(self, w: _Worker) -> _Worker:
        self._stop(w)
        self.workers.remove(w)
        fresh = self._start()
        self.workers.append(fresh)
        return fresh

    def _why(self, w: _Worker) -> str:
        code = w.proc.poll()
        if code is not None and code < 0:
            return f"died: {signal.Signals(-code).name}"
        return f"exited with status {code}" if code is not None else "died"

    def _read(self, w: _Worker) -> list[dict]:
        """Complete answers on `w`'s pipe; [] while the line is still coming."""
        try:
            chunk = w.proc.stdout.read()
        except OSError:
            chunk = b""
        if chunk:
            w.buffer += chunk
        answers = []
        while b"\n" in w.buffer:
            line, w.buffer = w.buffer.split(b"\n", 1)
            if not line.strip():
                continue
            message = json.loads(line)
            if "stage" in message:
                w.stage = message["stage"]
            else:
                answers.append(message)
        if chunk == b"" and not answers:  # EOF: the process is gone
            raise EOFError
        return answers

    def _poll(self) -> Iterator[tuple[_Worker, dict]]:
        for key, _ in self.sel.select(timeout=1.0):
            w = key.data
            try:
                for answer in self._read(w):
                    yield w, answer
            except EOFError:
                w.proc.wait()
                yield w, _died(w, self._why(w))
        now = time.monotonic()
        for w in list(self.workers):
            if w.request is not None and now - w.started > self.timeout:
                yield w, _died(w, f"timed out after {self.timeout:.0f} s")

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for w in self.workers:
            self._stop(w)
        self.workers = []

    def map(self, requests: Iterable[dict]) -> Iterator[dict]:
        """Answers to `requests` (dicts with ``id`` and ``configs``), in completion
        order. The workers stay up for the next call until ``close()``."""
        todo = iter(requests)
        while len(self.workers) < self.jobs:
            self.workers.append(self._start())
        idle = [w for w in self.workers if w.request is None]
        busy = 0
        while True:
            while idle:
                request = next(todo, None)
                if request is None:
                    break
                w = idle.pop()
                if not self._send(w, request):
                    yield _died(w, self._why(w))
                    idle.append(self._replace(w))
                    continue
                busy += 1
            if busy == 0:
                return
            for w, answer in list(self._poll()):
                if w.request is None:
                    if "died" in answer:  # an idle worker died: replace it
                        idle = [x for x in idle if x is not w] + [self._replace(w)]
                    continue
                busy -= 1
                w.request, w.served = None, w.served + 1
                yield answer
                if "died" in answer or w.served >= self.recycle:
                    w = self._replace(w)
                idle.append(w)

    def run(self, request: dict) -> dict:
        """One request's answer."""
        return next(iter(self.map([request])))
