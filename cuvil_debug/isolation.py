"""The channel between a tool (triage, diff) and the worker process that runs a user's
model, and what the tool says when the model ends that process.

The model runs with the user's rights in the worker; it can print, write to any file
descriptor, exit or crash. So that it cannot fool the tool by accident (or by a naive
forgery):

- results travel on a pipe the worker inherits under a number the parent chose; the
  worker reads that number (and a per-run random nonce) from its environment, deletes
  both before any model code runs, and moves the pipe to a random high descriptor;
- every message starts with the nonce; the parent drops (and counts) any line that
  does not, so a model writing JSON to fd 3, 4, ... is never taken for a result;
- fd 0 is /dev/null and fd 1 is pointed at fd 2 (or a file the parent reads), so a
  model's output never reaches a report on stdout;
- a worker that ends without its last message is described by how it ended
  ("called os._exit(0)/sys.exit", "killed by SIGSEGV", a timeout).

Nothing here stops a model that means harm (it could read the nonce from the
worker's memory): the model's code is trusted to the user's own rights, see
docs/TRIAGE.md "What the dynamic modes trust".
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import resource
import secrets
import signal
import threading
from typing import Any

__all__ = [
    "Channel",
    "WorkerChannel",
    "describe_exit",
    "limit_memory",
    "memory_size",
    "parse_size",
    "quiet_stdio",
]

ENV_FD, ENV_NONCE = "CUVIL_WORKER_CHANNEL_FD", "CUVIL_WORKER_CHANNEL_NONCE"
FORGED = "forged"  # the event a rejected line becomes on the parent's side


class Channel:
    """The parent's end: a pipe, the nonce, and a reader thread turning each valid
    line into an event on `events` (``None`` at end of file; a line without the
    nonce becomes ``{"event": "forged", "text": ...}``)."""

    def __init__(self) -> None:
        self.nonce = secrets.token_hex(16)
        self._read, self._write = os.pipe()
        self.events: queue.Queue = queue.Queue()

    @property
    def pass_fds(self) -> tuple[int, ...]:
        return (self._write,)

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        env = dict(os.environ if base is None else base)
        env.update({ENV_FD: str(self._write), ENV_NONCE: self.nonce})
        return env

    def start(self) -> None:
        """Call once the worker started: closes our copy of its end, starts reading."""
        os.close(self._write)
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        with os.fdopen(self._read, "rb") as stream:
            for raw in stream:
                self.events.put(self._parse(raw.decode("utf-8", "replace")))
        self.events.put(None)

    def _parse(self, line: str) -> dict:
        """A worker's message, or a `forged` event. The model may have written a
        partial line just before a real message: the message is from the nonce on."""
        at = line.find(self.nonce + " ")
        if at < 0:
            return {"event": FORGED, "text": line[:200]}
        try:
            event = json.loads(line[at + len(self.nonce) + 1 :])
        except ValueError:
            return {"event": FORGED, "text": line[:200]}
        if at > 0:  # the real message, behind bytes the model wrote
            event["forged_prefix"] = line[:at][:200]
        return event


class WorkerChannel:
    """The worker's end. Opened before any model code is imported: takes the
    descriptor and nonce out of the environment and hides the descriptor."""

    def __init__(self) -> None:
        fd = int(os.environ.pop(ENV_FD))
        self._nonce = os.environ.pop(ENV_NONCE)
        import fcntl

        # F_DUPFD: the lowest free descriptor >= a random start, far above the ones a
        # program opens by itself; close-on-exec, so no child of the model inherits it
        start = 512 + secrets.randbelow(3000)
        self._fd = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, start)
        os.close(fd)

    def send(self, event: dict[str, Any]) -> None:
        data = (self._nonce + " " + json.dumps(event, default=str) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]


def quiet_stdio() -> None:
    """fd 0 reads /dev/null, fd 1 goes where fd 2 goes (a model's print() never
    reaches stdout); call after reading anything the parent sent on stdin."""
    import sys

    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout.flush()
    os.dup2(2, 1)
    sys.stdout = sys.stderr


_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """'512M', '2G', '1.5GiB', '1000000' -> bytes (ValueError if not a size > 0)."""
    m = _SIZE.match(text)
    if m is None or float(m.group(1)) <= 0:
        raise ValueError(f"{text!r} is not a size such as 512M or 2G")
    power = "kmgt".find(m.group(2).lower()) + 1 if m.group(2) else 0
    return int(float(m.group(1)) * 1024**power)


def memory_size(text: str) -> int:
    """argparse type of --max-memory: parse_size, with argparse's one-line error."""
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def limit_memory(extra: int | None) -> None:
    """Cap this process's address space at what it maps now plus `extra` bytes: a
    model that allocates past it gets MemoryError (or torch's allocation error)
    instead of exhausting the machine."""
    if not extra:
        return
    with open("/proc/self/statm") as f:
        mapped = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    cap = mapped + extra
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def describe_exit(returncode: int | None, what: str = "the capture") -> str:
    """How a worker that never sent its result ended, in words."""
    if returncode is None:
        return f"the worker process stopped answering during {what}"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"the worker process was killed by {name} during {what}"
    if returncode == 0:
        return (
            f"the model ended the worker process with exit code 0 during {what} "
            "(os._exit(0) or an exit the worker could not catch)"
        )
    return f"the worker process died with exit code {returncode} during {what}"


def is_out_of_memory(error: dict | None) -> bool:
    """Does a collected error chain (triage's error_info) say memory ran out?"""
    for link in (error or {}).get("chain", []):
        message = link.get("message", "")
        if link.get("type") == "MemoryError" or "can't allocate memory" in message:
            return True
    return False
