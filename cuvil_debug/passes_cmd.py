"""`cuvil-debug passes MODEL` and `cuvil-debug opt FILE` (also `cuvil-opt FILE -p PIPELINE`).

``passes`` lowers a model, runs a pass pipeline and prints the pass table (and, asked for,
the IR diff of each changing pass); ``opt`` runs passes on a ``.cuvilir`` file and prints
the result, which is what the FileCheck tests in tests/passes/filecheck drive.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from cuvil.frontend import lower
from cuvil.ir import parse_module, print_module
from cuvil.ir.interpreter import random_params
from cuvil.passes import (
    PassContext,
    PassPipeline,
    PrintAfterAll,
    PrintAfterChange,
    Snapshots,
    combine,
    default_pipeline,
    describe_bisect,
    format_table,
)

# registers inject-fault also where the cuvil.passes entry point is not installed
from . import faults as _faults  # noqa: F401
from .loader import add_model_arguments, load_model
from .output import check_output, write_output
from .validate import read_ir

__all__ = ["add_parser", "run_passes_cmd", "run_opt", "opt_main"]


def _pipeline_args(p: argparse.ArgumentParser, default_help: str) -> None:
    p.add_argument(
        "-p",
        "--pipeline",
        metavar="PIPELINE",
        default=None,
        help=f"passes to run, e.g. 'fold-bn,fuse-elementwise{{max-ops=8}},dce' "
        f"({default_help})",
    )
    p.add_argument(
        "-O",
        dest="opt_level",
        choices=["0", "1", "2", "3"],
        default=None,
        help="use the default pipeline of this opt level",
    )
    p.add_argument(
        "--no-fusion", action="store_true", help="leave out the fusion passes"
    )
    p.add_argument(
        "--print-after-all", action="store_true", help="print the IR after each pass"
    )
    p.add_argument(
        "--print-after-change",
        action="store_true",
        help="print a unified diff of the IR after each pass that changed it",
    )
    p.add_argument(
        "--bisect-limit",
        type=_count,
        metavar="N",
        default=None,
        help="apply only the first N rewrite actions (pass bisection)",
    )
    p.add_argument(
        "--snapshot-dir",
        metavar="DIR",
        help="write the IR after each pass to DIR/0001-<pass>.cuvilir ...",
    )


def add_parser(commands) -> None:
    """Register the `passes` and `opt` subcommands."""
    p = commands.add_parser(
        "passes",
        help="run the pass pipeline on a model: pass table",
        description="Lower a model, run a pass pipeline and print what "
        "each pass did (changed, actions, time).",
    )
    add_model_arguments(p)
    _pipeline_args(p, "default: -O3")
    p.set_defaults(run=run_passes_cmd)

    q = commands.add_parser(
        "opt",
        help="run passes on a .cuvilir file and print the result",
        description="Parse a .cuvilir file (- for stdin), run passes, "
        "verify after each one and print the resulting IR.",
    )
    q.add_argument("file", metavar="FILE", help="a .cuvilir file, or - for stdin")
    _pipeline_args(q, "default: none")
    q.add_argument(
        "--random-params",
        action="store_true",
        help="give params random data so data-dependent passes (fold-bn) can run",
    )
    q.add_argument(
        "--pass-table", action="store_true", help="print the pass table on stderr"
    )
    q.add_argument("-o", "--output", metavar="FILE", help="write the IR to FILE")
    q.add_argument("--force", action="store_true", help="let -o overwrite FILE")
    q.set_defaults(run=run_opt)


def _pipeline(args, default_level: str | None) -> PassPipeline:
    """-p PIPELINE, else -O's default pipeline, else `default_level`'s (None: no passes)."""
    text, level = args.pipeline, args.opt_level or default_level
    if text is None:
        text = default_pipeline(f"O{level}", not args.no_fusion) if level else ""
    callback = combine(
        PrintAfterAll(sys.stdout) if args.print_after_all else None,
        PrintAfterChange(sys.stdout) if args.print_after_change else None,
        Snapshots(Path(args.snapshot_dir)) if args.snapshot_dir else None,
    )
    return PassPipeline(text, callback, verify_each=True)


def _bisect_line(args, ctx: PassContext) -> None:
    if args.bisect_limit is not None:
        print(describe_bisect(ctx), file=sys.stderr)


def run_passes_cmd(args: argparse.Namespace) -> int:
    loaded = load_model(args.model, args.entry)
    module = lower(loaded.model, loaded.inputs, frontend=args.frontend)
    pipeline = _pipeline(args, "3")
    ctx = pipeline.run(module, PassContext(args.bisect_limit))
    print(f"pipeline: {pipeline}")
    print(format_table(pipeline.infos))
    _bisect_line(args, ctx)
    return 0


def _count(text: str) -> int:
    """argparse type: an integer >= 0."""
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a count >= 0, got {text!r}")
    return n


def run_opt(args: argparse.Namespace) -> int:
    check_output(args.output, force=args.force)
    module = (
        parse_module(sys.stdin.read(), "<stdin>")
        if args.file == "-"
        else read_ir(args.file)
    )
    if args.random_params:
        random_params(module)
    pipeline = _pipeline(args, None)
    ctx = pipeline.run(module, PassContext(args.bisect_limit))
    if args.pass_table:
        print(format_table(pipeline.infos), file=sys.stderr)
    _bisect_line(args, ctx)
    write_output(print_module(module), args.output, force=args.force)
    return 0


def opt_main(argv: Sequence[str] | None = None) -> int:
    """The `cuvil-opt` console script: `cuvil-debug opt` under its own name."""
    from .cli import main

    return main(["opt", *(sys.argv[1:] if argv is None else argv)])
