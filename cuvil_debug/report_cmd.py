"""`cuvil-debug report merge OUT IN...`: join the reports of the `--shard K/N` runs of
a sweep (`triage`, or `diff` over many models) into the report the unsharded run
writes (docs/SCALING.md)."""

from __future__ import annotations

import argparse

from cuvil.args import EXIT_OK, add_force, check_output, write_output
from cuvil.argtypes import existing_file
from cuvil.errors import CuvilError

from .diff.sweep_report import SCHEMA as DIFF_SWEEP
from .diff.sweep_report import summary as diff_summary
from .triage.merge import FORMATS, TRIAGE, JsonKind, format_of, merge_files
from .triage.results import SCHEMA as TRIAGE_SCHEMA

__all__ = ["add_parser", "KINDS"]

# the JSON reports merge knows, by schema: how each is recounted, what shards share
KINDS = {
    TRIAGE_SCHEMA: TRIAGE,
    DIFF_SWEEP: JsonKind(diff_summary, ("frontend", "settings")),
}


def add_parser(commands) -> argparse.ArgumentParser:
    report = commands.add_parser(
        "report",
        help="work on sweep reports (merge the shards of triage or diff)",
        description="Work on the reports `cuvil-debug triage` and `cuvil-debug diff` "
        "over many models write.",
    )
    actions = report.add_subparsers(title="actions", metavar="ACTION")
    p = actions.add_parser(
        "merge",
        help="join the reports of a `--shard K/N` sweep's runs into one",
        description="Join the JSON, SARIF or JUnit reports of every shard of a "
        "`triage --shard K/N` or `diff MODEL... --shard K/N` sweep into the report "
        "the unsharded run writes.",
    )
    p.add_argument("out", metavar="OUT", help="the merged report to write (- : stdout)")
    p.add_argument(
        "inputs",
        nargs="+",
        metavar="IN",
        type=existing_file,
        help="a shard's report (every shard of the sweep, in any order)",
    )
    p.add_argument(
        "--format",
        choices=FORMATS,
        help="json, sarif or junit (default: from OUT's extension: .json, "
        ".sarif or .sarif.json, .xml)",
    )
    add_force(p, "let OUT overwrite an existing file")
    p.set_defaults(run=_merge)
    report.set_defaults(run=_help, parser=report)
    return p


def _help(args: argparse.Namespace) -> int:
    raise CuvilError(
        "report: give an action", hint="cuvil-debug report merge OUT IN... (--help)"
    )


def _merge(args: argparse.Namespace) -> int:
    fmt = args.format or _format_from(args.out, args.inputs)
    check_output(args.out, force=args.force)
    text = merge_files(args.inputs, fmt, KINDS)
    write_output(text, args.out, force=args.force)
    return EXIT_OK


def _format_from(out: str, inputs: list[str]) -> str:
    """OUT's format by its extension (for `-`, the first input's)."""
    name = inputs[0] if out == "-" else out
    fmt = format_of(name)
    if fmt is None:
        raise CuvilError(
            f"cannot tell the report format from {name!r}",
            hint="name it .json, .sarif or .xml (JUnit), or give --format",
        )
    return fmt
