"""`cuvil-debug triage`: the subcommand's options and its run function.

Exit codes: 0 no (new) failures; 1 at least one new failure (a failed capture, a model
that cannot be loaded, a timeout or a crash); 2 a usage error (bad baseline file,
nothing to triage); 3 an internal error of triage itself.
"""

from __future__ import annotations

import argparse
import io
import json
import sys

from cuvil.argtypes import existing_file, positive_float, positive_int
from cuvil.errors import CuvilError

from ..args import ModelArgs, Output, OutputArgs
from ..isolation import memory_size
from .api import (
    DEFAULT_TIMEOUT,
    expand_specs,
    load_baseline,
    new_failures,
    report_doc,
    triage,
)
from .collect import FRONTENDS, STAGES
from .ray_executor import check_address, require_ray
from .report_codequality import write_codequality
from .report_junit import to_junit
from .report_markdown import to_markdown
from .report_sarif import write_sarif
from .select import missing_path, model_specs
from .shard import select, shard_meta, shard_spec

__all__ = [
    "add_parser",
    "run",
    "EXIT_OK",
    "EXIT_FAILURES",
    "EXIT_USAGE",
    "EXIT_INTERNAL",
]

EXIT_OK, EXIT_FAILURES, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
FORMATS = ("terminal", "json", "markdown", "sarif", "junit", "codequality")
EXECUTORS = ("local", "ray")
MODELS = ModelArgs(many=True, frontends=FRONTENDS)
# an existing report is replaced only with --force (a CI job rewriting it passes it)
OUTPUT = OutputArgs(
    "write the report here (default: stdout)",
    metavar=None,
    force="let -o overwrite an existing report",
    formats=FORMATS,
    default_format="terminal",
    format_dest="fmt",
)


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "triage",
        help="classify why models fail to compile and find the root cause",
        description="Capture each model, classify failures, trace them to the line "
        "to change, and report (see docs/TRIAGE.md).",
    )
    MODELS.add_to(p)
    p.add_argument(
        "--stage",
        choices=STAGES,
        default="lower",
        help="lower to Cuvil IR (default) or compile to native code too",
    )
    OUTPUT.add_to(p)
    p.add_argument(
        "--baseline",
        type=existing_file,
        help="a previous --format json report: fail only on failures not in it",
    )
    _add_capture_args(p)
    _add_scale_args(p)
    p.set_defaults(func=run, run=run)
    return p


def _add_scale_args(p: argparse.ArgumentParser) -> None:
    """Sweeps over many models: shards for a CI matrix, a Ray cluster (docs/SCALING.md)."""
    p.add_argument(
        "--shard",
        type=shard_spec,
        metavar="K/N",
        help="triage only shard K of N (1-based; the sorted models dealt "
        "round-robin); `cuvil-debug report merge` joins the shards' reports",
    )
    p.add_argument(
        "--executor",
        choices=EXECUTORS,
        default="local",
        help="local worker processes (default), or one Ray task per model on the "
        "cluster at --address (pip install cuvil[ray])",
    )
    p.add_argument(
        "--address",
        metavar="ADDR",
        help="with --executor ray: the cluster (HOST:PORT, ray://HOST:PORT, auto: "
        "the one `ray start` runs here, the default), or `local` to start a private "
        "one of -j CPUs for this run",
    )


def _add_capture_args(p: argparse.ArgumentParser) -> None:
    """How each model is captured, and the limits of its worker."""
    p.add_argument(
        "--cuvil-leaves",
        action="store_true",
        help="fx: keep the modules Cuvil lowers as leaves and trace into the others "
        "(what cuvil.compile does), instead of torch.fx's own leaves",
    )
    p.add_argument(
        "--no-grad",
        action="store_true",
        help="capture under torch.no_grad() (default: grad mode as you run the model)",
    )
    p.add_argument(
        "--timeout",
        type=positive_float,
        default=DEFAULT_TIMEOUT,
        help=f"seconds per model before its capture is killed "
        f"(default {DEFAULT_TIMEOUT:g})",
    )
    p.add_argument(
        "-j", "--jobs", type=positive_int, default=2, help="worker processes (>= 1)"
    )
    p.add_argument(
        "--max-memory",
        type=memory_size,
        metavar="SIZE",
        help="memory each worker may take beyond its start, e.g. 4G: a model that "
        "allocates more gets MemoryError and is reported as an error (default: "
        "no cap)",
    )
    p.add_argument(
        "--no-isolate",
        action="store_true",
        help="capture in this process (faster; no timeout or crash safety)",
    )
    p.add_argument(
        "--static",
        action="store_true",
        help="predict failures from the source and AST alone, importing and running "
        "no model code (for untrusted pull requests; less accurate)",
    )
    p.add_argument(
        "--skip-non-models",
        action="store_true",
        help="leave out .py files that define no model entry (read, not imported); "
        "none left is success (the pre-commit hook passes every staged file)",
    )


def run(args: argparse.Namespace) -> int:
    output = OUTPUT.parse(args)
    output.check()  # a report that may not be written: say so before the captures
    models = MODELS.parse(args)
    missing = [s for s in models.specs if missing_path(s)]
    if missing:  # a typo on the command line, not a finding of the batch
        return _usage(f"{missing[0]}: no such file or directory")
    specs = expand_specs(list(models.specs))
    if args.skip_non_models:  # none left is an empty report, not a mistake
        specs = model_specs(specs, models.entry)
    elif not specs:
        return _usage(f"no models found in {' '.join(models.specs)}")
    mistake = _executor_mistake(args)
    if mistake:
        return _usage(mistake)
    positions = select(specs, args.shard) if args.shard else list(range(len(specs)))
    try:
        baseline = load_baseline(args.baseline) if args.baseline else None
    except (OSError, ValueError, KeyError) as e:
        return _usage(f"cannot read baseline: {e}")
    max_memory = args.max_memory
    results = triage(
        [specs[i] for i in positions],
        models.frontend,
        models.entry,
        args.timeout,
        args.jobs,
        not args.no_isolate,
        args.stage,
        cuvil_leaves=args.cuvil_leaves,
        no_grad=args.no_grad,
        static=args.static,
        max_memory=max_memory,
        executor=args.executor,
        address=args.address,
    )
    mode = "static" if args.static else "capture"
    doc = report_doc(results, models.frontend, args.stage, mode)
    if args.shard:
        doc["shard"] = shard_meta(args.shard, len(specs), positions)
    new = new_failures(results, baseline)
    _emit(doc, new if baseline is not None else None, output)
    return EXIT_FAILURES if new else EXIT_OK


def _executor_mistake(args: argparse.Namespace) -> str | None:
    """What is wrong with --executor / --address, or None; Ray is imported here, so
    that a missing Ray is said before any capture."""
    if args.executor != "ray":
        return "--address needs --executor ray" if args.address else None
    if args.no_isolate or args.static:
        flag = "--no-isolate" if args.no_isolate else "--static"
        return f"{flag} captures in this process: leave out --executor ray or {flag}"
    try:
        require_ray()
        check_address(args.address or "auto")
    except CuvilError as e:
        return e.message
    return None


def _usage(message: str) -> int:
    print(f"cuvil-debug triage: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _emit(doc: dict, new: list[dict] | None, output: Output) -> None:
    if output.format == "terminal":
        _terminal(doc, new, output)
        return
    text = {
        "json": lambda: json.dumps(doc, indent=1) + "\n",
        "markdown": lambda: to_markdown(doc, new),
        "sarif": lambda: write_sarif(doc),
        "junit": lambda: to_junit(doc),
        "codequality": lambda: write_codequality(doc),
    }[output.format]()
    if output.path:
        output.write(text)
    else:
        sys.stdout.write(text)


def _terminal(doc: dict, new: list[dict] | None, output: Output) -> None:
    from .report_terminal import print_report, report_console

    stream = io.StringIO() if output.path else None
    console = report_console(doc, stream)
    print_report(doc, console)
    if new is not None:
        console.print(f"{len(new)} new failure(s) compared with the baseline")
    if stream is not None:  # the file is written whole, atomically
        output.write(stream.getvalue())
