"""A triage worker process: reads every job (JSON lines) on stdin first, captures
each model and sends `start` and `result` events on the private channel of
cuvil_debug.isolation (a hidden pipe, every message carrying the run's nonce).

Model code may print, write to any descriptor or read stdin: stdin is /dev/null by
then and fd 1 goes where fd 2 goes (the output file the parent reads).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys

from ..isolation import WorkerChannel, is_out_of_memory, limit_memory, quiet_stdio
from .collect import collect


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cuvil_debug.triage.worker")
    parser.add_argument("--max-memory", type=int, default=None)
    opts = parser.parse_args(argv)
    channel = WorkerChannel()  # before any model code: the environment is cleaned
    jobs = [json.loads(line) for line in sys.stdin.read().splitlines() if line]
    quiet_stdio()
    _warm_up()
    limit_memory(opts.max_memory)
    for job in jobs:
        channel.send({"event": "start", "index": job["index"], "out": _out_size()})
        with _global_state_kept():
            record = _collect(job["collect"], opts.max_memory)
        channel.send(
            {
                "event": "result",
                "index": job["index"],
                "record": record,
                "out": _out_size(),
            }
        )
    return 0


def _collect(args: dict, max_memory: int | None) -> dict:
    """collect(), with what it lets through said as what it is: a model that calls
    sys.exit() (or raises KeyboardInterrupt), one that runs out of memory."""
    try:
        record = collect(**args)
    except SystemExit as e:
        return _ended(args, f"the model called sys.exit({e.code!r}) during capture")
    except KeyboardInterrupt:
        return _ended(args, "the model raised KeyboardInterrupt during capture")
    except MemoryError:  # raised outside collect's own handlers
        return _ended(args, _oom(max_memory), status="error")
    error = record.get("error") or {}
    eager = (record.get("eager") or {}).get("error")
    if record["status"] in ("failed", "error") and (
        is_out_of_memory(error) or is_out_of_memory(eager)
    ):
        record.update(status="error", message=_oom(max_memory))
    return record


@contextlib.contextmanager
def _global_state_kept():
    """Restores process-wide switches a model may flip at import or in forward(), so
    the next model captured in this process starts as it would alone:
    torch.distributions' argument validation (`set_default_validate_args`) decides
    whether a distribution's constructor checks its arguments, which changes how a
    capture fails."""
    from torch.distributions import Distribution

    from cuvil.frontend.module_state import functorch_kept

    validate = Distribution._validate_args
    try:
        with functorch_kept():  # a model left inside torch.func.vmap
            yield
    finally:
        Distribution.set_default_validate_args(validate)


def _ended(args: dict, message: str, status: str = "crash") -> dict:
    return {
        "spec": args["spec"],
        "frontend": args["frontend"],
        "status": status,
        "message": message,
    }


def _oom(max_memory: int | None) -> str:
    limit = f" (--max-memory {max_memory / 2**20:g} MiB)" if max_memory else ""
    return f"the model ran out of memory during capture{limit}"


def _out_size() -> int:
    """Where the output file ends now: the model output of a job lies between its
    `start` and `result` events."""
    sys.stderr.flush()
    try:
        return os.fstat(2).st_size
    except OSError:  # the model closed fd 2
        return -1


def _warm_up() -> None:
    """Import torch and the frontends now, so a model's timeout covers its capture."""
    import torch  # noqa: F401
    import torch.export  # noqa: F401

    import cuvil.frontend  # noqa: F401


if __name__ == "__main__":
    sys.exit(main())
