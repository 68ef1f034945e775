"""The doctor's check type, how a check runs (in its own thread, under a time limit),
and the helpers the checks share (running a program with a timeout)."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = [
    "Check",
    "OK",
    "WARN",
    "FAIL",
    "STATUSES",
    "run_checks",
    "run_program",
    "Program",
]

OK, WARN, FAIL = "OK", "WARN", "FAIL"
STATUSES = (OK, WARN, FAIL)


@dataclass
class Check:
    """One line of the doctor's report: `status` is OK, WARN or FAIL, `summary` what
    was found, `advice` what to do (empty when OK), `details` the facts as data."""

    id: str
    title: str
    status: str
    summary: str
    advice: str = ""
    details: dict = field(default_factory=dict)
    duration_s: float = 0.0

    def as_json(self) -> dict:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "summary": self.summary,
            "advice": self.advice,
            "details": self.details,
            "duration_s": round(self.duration_s, 3),
        }


CheckFn = Callable[[float], Check]


def run_checks(checks: list[tuple[str, str, CheckFn]], timeout: float) -> list[Check]:
    """Every check at once, each in a daemon thread; one that has not answered within
    `timeout` seconds (plus a grace for its own program timeouts) is a FAIL, and its
    thread is left behind (a daemon: it does not keep the process alive)."""
    slots: list[Check | None] = [None] * len(checks)
    threads = []
    start = time.monotonic()
    for i, (cid, title, fn) in enumerate(checks):
        t = threading.Thread(
            target=_run_one, args=(slots, i, cid, title, fn, timeout), daemon=True
        )
        t.start()
        threads.append(t)
    deadline = start + 2 * timeout + 5  # a check may run two programs in turn
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    return [
        slot or _hung(cid, title, timeout)
        for slot, (cid, title, _) in zip(slots, checks)
    ]


def _run_one(slots, i, cid, title, fn, timeout) -> None:
    t0 = time.monotonic()
    try:
        check = fn(timeout)
    except Exception as e:  # a broken check is a finding, not a doctor crash
        check = Check(
            cid,
            title,
            FAIL,
            f"the check itself failed: {type(e).__name__}: {e}",
            "report this as a Cuvil bug (rerun with --traceback is no help here)",
        )
    check.id, check.title = cid, title
    check.duration_s = time.monotonic() - t0
    slots[i] = check


def _hung(cid: str, title: str, timeout: float) -> Check:
    return Check(
        cid,
        title,
        FAIL,
        f"the check did not finish within {timeout:g} s",
        "something it runs hangs; rerun with a larger --timeout, or run it by hand",
    )


@dataclass(frozen=True)
class Program:
    """What running a program gave: `missing` (not on PATH), `timed_out`, else the
    exit status and its output (stdout and stderr together)."""

    missing: bool = False
    timed_out: bool = False
    returncode: int | None = None
    output: str = ""

    @property
    def ok(self) -> bool:
        return not self.missing and not self.timed_out and self.returncode == 0

    def first_line(self) -> str:
        lines = [line.strip() for line in self.output.splitlines() if line.strip()]
        return lines[0] if lines else ""


def run_program(argv: list[str], timeout: float, env: dict | None = None) -> Program:
    """Run `argv` with stdin from /dev/null in its own session; after `timeout`
    seconds the whole session is killed (a hung debugger's children too, which would
    otherwise hold the output pipe open)."""
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            env=env if env is not None else os.environ.copy(),
            start_new_session=True,
        )
    except FileNotFoundError:
        return Program(missing=True)
    except PermissionError as e:
        return Program(returncode=126, output=str(e))
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_session(proc)
        return Program(timed_out=True)
    return Program(returncode=proc.returncode, output=output)


def _kill_session(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate()
