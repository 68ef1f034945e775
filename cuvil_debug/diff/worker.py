"""The process a ``cuvil-debug diff`` runs its model in (see isolated.py): a forked
copy of the command (`serve`, with the parsed arguments in memory), or ``python -m
cuvil_debug.diff.worker`` reading them pickled on stdin (`main`). It runs the diff,
renders the report and sends it on the private channel of cuvil_debug.isolation as one
`done` event; a mistake is an `error` event (one line, exit 2), a bug an `internal`
one (exit 3).

Model code may print: fd 1 goes where fd 2 goes, which the parent relays to its
stderr; only the parent writes the report.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import traceback

from ..isolation import WorkerChannel, limit_memory, quiet_stdio

PROG = "cuvil-debug diff"


def main() -> int:
    channel = WorkerChannel()  # before any model code: the environment is cleaned
    payload = pickle.loads(sys.stdin.buffer.read())
    return serve(payload, channel)


def serve(payload: dict, channel: WorkerChannel) -> int:
    """The diff of `payload` (isolated.py's), its result sent on `channel`."""
    quiet_stdio()
    args = argparse.Namespace(**payload["args"])
    limit_memory(payload.get("max_memory"))
    channel.send(_run(args, payload, channel))
    return 0


def _run(args, payload: dict, channel: WorkerChannel) -> dict:
    from cuvil.args import describe_error
    from cuvil.errors import CuvilError

    from .cli import DIFF_OUTPUT, diff_report
    from .isolated import report_texts

    try:
        progress = None
        if payload.get("progress"):  # each phase, as an event the parent shows

            def progress(phase: str) -> None:
                channel.send({"event": "progress", "phase": phase})

        report, code = diff_report(args, progress)
        texts = report_texts(
            report, DIFF_OUTPUT.parse(args), args, payload["tty"], payload["width"]
        )
    except CuvilError as e:
        if args.traceback:
            traceback.print_exc()
        return {"event": "error", "text": describe_error(e, "cuvil-debug")}
    except SystemExit as e:
        return _error(f"the model called sys.exit({e.code!r}) during the diff")
    except KeyboardInterrupt:
        return _error("the model raised KeyboardInterrupt during the diff")
    except MemoryError:
        limit = payload.get("max_memory")
        cap = f" (--max-memory {limit / 2**20:g} MiB)" if limit else ""
        return _error(f"the model ran out of memory during the diff{cap}")
    except Exception as e:  # noqa: BLE001 - a bug of the diff: exit 3
        if args.traceback:
            traceback.print_exc()
        return {
            "event": "internal",
            "text": f"cuvil-debug: internal error: {type(e).__name__}: {e} "
            "(rerun with --traceback)",
        }
    return {"event": "done", "code": code, **texts}


def _error(message: str) -> dict:
    return {"event": "error", "text": f"{PROG}: error: {message}"}


if __name__ == "__main__":
    sys.exit(main())
