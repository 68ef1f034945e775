"""`cuvil-debug ci report`: the reports a CI job publishes, from one triage JSON
report (one capture of the models, every format from it)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from cuvil.argtypes import existing_file
from cuvil.errors import CuvilError

from ..args import OutputArgs
from ..triage.api import load_baseline, new_failures
from ..triage.report_codequality import write_codequality
from ..triage.report_junit import to_junit
from ..triage.report_markdown import to_markdown
from ..triage.report_sarif import write_sarif
from ..triage.results import SCHEMA

__all__ = ["add_parser", "render"]

FORMATS = ("markdown", "sarif", "junit", "codequality", "ok-models")
OUTPUT = OutputArgs(
    "write the report here (default: stdout)",
    metavar=None,
    force="let -o overwrite an existing file",
    formats=FORMATS,
    default_format="markdown",
    format_help="markdown (job summary), sarif (code scanning), junit, codequality "
    "(GitLab), ok-models (the models triage captured, one a line, for diff)",
)


def add_parser(commands) -> None:
    p = commands.add_parser(
        "report",
        help="render a triage JSON report as Markdown, SARIF, JUnit or Code Quality",
        description="Render a `cuvil-debug triage --format json` report in another "
        "format, so a CI job captures its models once.",
    )
    p.add_argument("report", type=existing_file, help="a triage --format json report")
    OUTPUT.add_to(p)
    p.add_argument(
        "--baseline",
        type=existing_file,
        help="a previous triage JSON report: markdown says which failures are new",
    )
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    output = OUTPUT.parse(args)
    output.check()
    doc = _read(args.report)
    baseline = _baseline(args.baseline) if args.baseline else None
    text = render(doc, output.format, baseline)
    output.write(text) if output.path else print(text, end="")
    return 0


def render(doc: dict, fmt: str, baseline: set | None = None) -> str:
    if fmt == "markdown":
        new = new_failures(doc["results"], baseline) if baseline is not None else None
        return to_markdown(doc, new)
    if fmt == "ok-models":
        return "".join(f"{r['model']}\n" for r in doc["results"] if r["status"] == "ok")
    writer = {"sarif": write_sarif, "junit": to_junit, "codequality": write_codequality}
    return writer[fmt](doc)


def _read(path: str) -> dict:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CuvilError(f"cannot read triage report '{path}': {e}") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise CuvilError(
            f"'{path}' is not a triage report (expected schema {SCHEMA!r})",
            hint="write one with: cuvil-debug triage MODELS --format json -o FILE",
        )
    return doc


def _baseline(path: str) -> set:
    try:
        return load_baseline(path)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise CuvilError(f"cannot read baseline: {e}") from None
