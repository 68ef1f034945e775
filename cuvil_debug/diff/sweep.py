"""`cuvil-debug diff` over many models: each model's diff in its own worker process,
one report with a result per model (sweep_report.py), shardable over CI jobs.

The sweep form is chosen by what is asked: several MODELs, a folder or a quoted glob
(expanded as triage expands them), ``--shard K/N``, ``--skip-non-models``, or a sweep
format (``markdown``, ``junit``, ``sarif``). One model file without those is the
single-model diff, its report and exit codes unchanged. Each model runs in the
single diff's worker (isolated.py: the private result channel, ``--timeout``,
``--max-memory``), so a model that hangs, exits or crashes is that model's `timeout`,
`error` or `crash`, and the sweep goes on; ``-j N`` runs N at once. Exit status: 0
every model ok, 1 any other result, 2 a mistake (before any model runs).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from cuvil.argtypes import positive_int
from cuvil.errors import CuvilError

from ..isolation import describe_exit
from ..triage.api import expand_specs, is_glob
from ..triage.select import missing_path, model_specs
from ..triage.shard import select, shard_meta, shard_spec
from .isolated import isolation_limits, plain_args, run_worker, terminal
from .sweep_report import render_sweep, sweep_doc, verdict

__all__ = ["SWEEP_FORMATS", "add_sweep_args", "is_sweep", "run_sweep"]

SWEEP_FORMATS = ("markdown", "junit", "sarif")
EXIT_OK, EXIT_DIVERGED = 0, 1
# what one model's report needs of the command line: JSON, to stdout of the worker
_ONE = {"format": "json", "output": None, "dot": None, "tui": False, "all": False}
_ONE.update(progress=False, force=False)
# single-model options a sweep refuses (dest: flag), and formats it cannot write
_SINGLE_ONLY = {
    "tui": "--tui",
    "break_on": "--break-on",
    "dot": "--dot",
    "all": "--all",
}
_SINGLE_FORMATS = ("html", "dot")
# the options that decide a sweep's results: equal in every shard of one sweep
_SETTINGS = ("stages", "opt_level", "no_fusion", "pipeline", "threads", "entry")
_SETTINGS += ("inject", "rtol", "atol", "tol", "elementwise", "no_members", "fail_on")


def add_sweep_args(p: argparse.ArgumentParser) -> None:
    """The options of a diff over many models (docs/DIFF.md, docs/SCALING.md)."""
    p.add_argument(
        "--shard",
        type=shard_spec,
        metavar="K/N",
        help="many models: diff only shard K of N (the sorted models dealt "
        "round-robin, as triage); `cuvil-debug report merge` joins the shards",
    )
    p.add_argument(
        "-j",
        "--jobs",
        type=positive_int,
        default=1,
        metavar="N",
        help="many models: diff N models at once, each in its own worker (default 1)",
    )
    p.add_argument(
        "--skip-non-models",
        action="store_true",
        help="many models: leave out .py files that define no model entry (read, "
        "not imported); none left is an empty report",
    )


def is_sweep(args: argparse.Namespace) -> bool:
    """Does the command line ask for the report over many models?"""
    specs = args.models
    return (
        len(specs) > 1
        or any(is_glob(s) or os.path.isdir(s) for s in specs)
        or args.shard is not None
        or args.skip_non_models
        or args.format in SWEEP_FORMATS
    )


def check_sweep_args(args: argparse.Namespace) -> None:
    """The single-model options a sweep cannot honour: one line, exit 2."""
    if args.format in _SINGLE_FORMATS:
        raise CuvilError(
            f"--format {args.format} is a report of one model, not of many",
            hint="a diff of many models writes --format table, json, markdown, "
            "junit or sarif",
        )
    for dest, flag in _SINGLE_ONLY.items():
        if getattr(args, dest, None):
            raise CuvilError(
                f"{flag} works on one model's diff, not on many",
                hint=f"give one MODEL with {flag}",
            )
    if args.no_isolate and args.jobs > 1:
        raise CuvilError(
            "-j runs models in worker processes, which --no-isolate does not use",
            hint="drop --no-isolate or -j",
        )


def sweep_specs(args: argparse.Namespace) -> list[str]:
    """The model specs of the sweep: folders and globs expanded, non-models left out
    with --skip-non-models; CuvilError for a path that is not there or no model."""
    missing = [s for s in args.models if missing_path(s)]
    if missing:
        raise CuvilError(f"{missing[0]}: no such file or directory")
    specs = expand_specs(list(args.models))
    if args.skip_non_models:
        return model_specs(specs, args.entry)
    if not specs:
        raise CuvilError(
            f"no models found in {' '.join(args.models)}",
            hint="give model files, a folder of them or a quoted glob",
        )
    return specs


def run_sweep(args: argparse.Namespace, output) -> int:
    """The diff of every model of the sweep; the report written where `output`
    says; 1 if any model did not come out ok."""
    check_sweep_args(args)
    timeout, memory = isolation_limits(args)
    specs = sweep_specs(args)
    positions = select(specs, args.shard) if args.shard else list(range(len(specs)))
    mine = [specs[i] for i in positions]
    log = _Log(len(mine))
    base = plain_args(args)

    def one(spec: str) -> dict:
        started = time.monotonic()
        if args.no_isolate:
            record = _in_process(argparse.Namespace(**{**base, **_ONE, "model": spec}))
        else:
            record = _isolated(base, spec, timeout, memory)
        record = {"model": spec, **record}
        record["duration_s"] = round(time.monotonic() - started, 3)
        log.done(record)
        return record

    with ThreadPoolExecutor(max(1, min(args.jobs, len(mine) or 1))) as pool:
        results = list(pool.map(one, mine))
    settings = {k: _plain(getattr(args, k, None)) for k in _SETTINGS}
    doc = sweep_doc(results, args.frontend, settings)
    if args.shard:
        doc["shard"] = shard_meta(args.shard, len(specs), positions)
    tty, width = terminal()
    to_file = bool(output.path and output.path != "-")
    text = render_sweep(doc, output.format, width, tty and not to_file)
    output.write(text)
    return EXIT_OK if all(r["status"] == "ok" for r in results) else EXIT_DIVERGED


def _plain(value):
    return list(value) if isinstance(value, tuple) else value


class _Log:
    """One line on stderr as each model finishes: ``[k/n] MODEL: result (s)``."""

    def __init__(self, total: int) -> None:
        self.total, self.count, self.lock = total, 0, threading.Lock()

    def done(self, r: dict) -> None:
        with self.lock:
            self.count += 1
            what = (
                r["status"] if r["status"] == "ok" else f"{r['status']}: {verdict(r)}"
            )
            print(
                f"cuvil-debug diff: [{self.count}/{self.total}] {r['model']}: {what} "
                f"({r['duration_s']:.1f} s)",
                file=sys.stderr,
                flush=True,
            )


# ---- one model ------------------------------------------------------------------------
def _isolated(base: dict, spec: str, timeout, memory) -> dict:
    """One model's diff in a worker, as a result record (no `model`, no time)."""
    payload = {"args": {**base, **_ONE, "model": spec}, "tty": False, "width": 160}
    payload.update(max_memory=memory, progress=False)
    events, timed_out, returncode = run_worker(payload, timeout)
    if timed_out:
        return _bad("timeout", f"the diff did not finish within {timeout:g} s")
    forged = [e for e in events if e.get("event") == "forged" or "forged_prefix" in e]
    if forged:
        return _bad(
            "error",
            f"the model wrote to the diff's result channel: {len(forged)} line(s) "
            "without this run's nonce were rejected",
        )
    final = next((e for e in events if e.get("event") == "done"), None)
    if final is not None:
        return _from_report(json.loads(final["report"]), final["code"])
    said = next((e for e in events if e.get("event") in ("error", "internal")), None)
    if said is not None:
        status = "error" if said["event"] == "error" else "crash"
        return _bad(status, _first_line(said["text"]))
    return _bad("crash", describe_exit(returncode, "the diff"))


def _in_process(args: argparse.Namespace) -> dict:
    """One model's diff in this process (--no-isolate)."""
    from cuvil.args import describe_error

    from .cli import diff_report
    from .render import report_json

    try:
        with contextlib.redirect_stdout(sys.stderr):  # the model's prints
            report, code = diff_report(args)
    except CuvilError as e:
        return _bad("error", _first_line(describe_error(e, "cuvil-debug")))
    except SystemExit as e:
        return _bad("error", f"the model called sys.exit({e.code!r}) during the diff")
    except MemoryError:
        return _bad("error", "the model ran out of memory during the diff")
    except Exception as e:  # noqa: BLE001 - a bug of the diff, of this model only
        return _bad("crash", f"internal error: {type(e).__name__}: {e}")
    return _from_report(report_json(report), code)


def _from_report(doc: dict, code: int) -> dict:
    """The result of a diff that ran to its end (`doc`: its JSON report)."""
    first = doc.get("first")
    keep = ("node", "stage", "source", "code", "reason", "culprit", "pass_name")
    record = {
        "status": "diverged" if code == EXIT_DIVERGED else "ok",
        "nodes": len(doc["rows"]),
        "outputs_ok": doc["outputs_ok"],
        "first": {k: first.get(k) for k in keep} if first else None,
    }
    if record["status"] == "diverged" and first is None:
        failed = [s for s, ok in doc["outputs_ok"].items() if not ok]
        record["message"] = (
            f"the model's output differs in {', '.join(failed)}"
            if failed
            else "a --fail-on condition holds"
        )
    return record


def _bad(status: str, message: str) -> dict:
    return {"status": status, "message": message, "first": None}


_PREFIXES = ("cuvil-debug diff: error: ", "cuvil-debug: error: ")


def _first_line(text: str) -> str:
    """A worker's error text without the tool's prefix, its first line only."""
    line = text.strip().splitlines()[0] if text.strip() else "no message"
    for prefix in _PREFIXES:
        if line.startswith(prefix):
            return line[len(prefix) :]
    return line
