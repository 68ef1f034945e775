"""`cuvil-debug doctor`: one screen that says what works here and what to do.

Exit codes: 0 no check FAILs (WARNs allowed); 1 at least one FAIL; 2 a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys

from cuvil.argtypes import positive_float

from . import packages, tools, versions
from .core import FAIL, OK, WARN, Check, run_checks

__all__ = ["add_parser", "CHECKS", "SCHEMA", "doctor", "report_doc"]

SCHEMA = "cuvil-doctor/1"
DEFAULT_TIMEOUT = 20.0  # seconds per program a check runs (a cold gdb/lldb start)
EXIT_OK, EXIT_FAIL = 0, 1

# (id, title, check) in report order
CHECKS = [
    ("python", "Python", versions.python),
    ("torch", "torch", versions.torch_version),
    ("llvmlite", "llvmlite / LLVM", versions.llvmlite_version),
    ("cuvil", "Cuvil", versions.cuvil_version),
    ("cpu", "host CPU (LLVM target)", versions.cpu),
    ("gdb", "GDB", tools.gdb),
    ("lldb", "LLDB", tools.lldb),
    ("ptrace", "ptrace scope", tools.ptrace),
    ("perf", "perf", tools.perf),
    ("graphviz", "graphviz", tools.graphviz),
    ("cc", "C compiler (AOT)", tools.c_compiler),
    ("cache", "object cache", versions.cache),
    ("packages", "installed packages", packages.packages),
]


def add_parser(commands) -> argparse.ArgumentParser:
    p = commands.add_parser(
        "doctor",
        help="check this machine: versions, debuggers, perf, compiler, cache",
        description="Check what Cuvil and its tools need here; each check is OK, "
        "WARN or FAIL with what to do. Exit 1 if any FAILs (docs/DOCTOR.md).",
    )
    p.add_argument(
        "--format",
        choices=("terminal", "json"),
        default="terminal",
        help="terminal (default) or json (schema cuvil-doctor/1, docs/DOCTOR.md)",
    )
    p.add_argument(
        "--timeout",
        type=positive_float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"limit of each program a check runs (default {DEFAULT_TIMEOUT:g})",
    )
    p.set_defaults(run=_run)
    return p


def doctor(timeout: float = DEFAULT_TIMEOUT) -> list[Check]:
    return run_checks(CHECKS, timeout)


def report_doc(checks: list[Check]) -> dict:
    from cuvil import __version__

    worst = FAIL if _count(checks, FAIL) else WARN if _count(checks, WARN) else OK
    return {
        "schema": SCHEMA,
        "tool": {"name": "cuvil-debug doctor", "version": __version__},
        "status": worst,
        "summary": {s: _count(checks, s) for s in (OK, WARN, FAIL)},
        "checks": [c.as_json() for c in checks],
    }


def _count(checks: list[Check], status: str) -> int:
    return sum(c.status == status for c in checks)


def _run(args: argparse.Namespace) -> int:
    checks = doctor(args.timeout)
    doc = report_doc(checks)
    if args.format == "json":
        sys.stdout.write(json.dumps(doc, indent=1) + "\n")
    else:
        _print_terminal(checks, doc)
    return EXIT_FAIL if doc["summary"][FAIL] else EXIT_OK


_STYLE = {OK: "green", WARN: "yellow", FAIL: "bold red"}


def _print_terminal(checks: list[Check], doc: dict) -> None:
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False)
    width = max(len(c.title) for c in checks)
    for c in checks:
        tag = f"[{_STYLE[c.status]}]{c.status:<4}[/]"
        console.print(f"{tag} {c.title:<{width}}  {escape(c.summary)}")
        if c.advice:
            console.print(f"     {'':<{width}}  [dim]-> {escape(c.advice)}[/]")
    s = doc["summary"]
    console.print(f"{s[OK]} ok, {s[WARN]} warning(s), {s[FAIL]} failure(s)")
