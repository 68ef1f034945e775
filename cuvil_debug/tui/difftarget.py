"""Diff reports on the command line of the TUI: `cuvil-debug tui diff.json`,
`cuvil-debug tui MODEL --diff diff.json` and `cuvil-debug diff MODEL --tui`.

The report and the IR it diffed (a report TARGET) are read and checked before the UI
starts (one CuvilError, exit 2); that the report names FX nodes of the shown ops (an
overlay on a MODEL target) is checked once the model is loaded, in the app's worker,
and fails the same way. `build_app` makes the app without starting
it, so the tests drive the same app the commands run.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cuvil.errors import CuvilError
from cuvil.ir import Module

from .diffload import is_report_path, read_report, report_base, report_ir

if TYPE_CHECKING:
    from .app import CuvilTUI

__all__ = [
    "add_arguments",
    "build_app",
    "is_report_path",
    "load_report",
    "overlay",
    "report_target",
    "report_app",
    "run_diff_tui",
]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--diff",
        metavar="REPORT",
        help="overlay a `cuvil-debug diff --format json` report on the model's ops",
    )


def load_report(args: argparse.Namespace) -> dict[str, Any] | None:
    """The report of a ``.json`` TARGET or of ``--diff``; None without one."""
    given = getattr(args, "diff", None)
    if is_report_path(args.model):
        if given:
            raise CuvilError(
                f"TARGET {args.model} is a diff report already; --diff overlays a "
                "report on a model or .cuvilir TARGET"
            )
        return read_report(args.model)
    return read_report(given) if given else None


def report_target(
    args: argparse.Namespace, report: dict[str, Any] | None
) -> tuple[Module, Path]:
    """The IR a report TARGET diffed and the folder of its source paths."""
    path = args.model
    if args.pipeline is not None or args.opt_level is not None:
        raise CuvilError(
            "-O/-p do not apply to a diff report: it holds the IR it diffed",
            where=path,
            hint="to see another pipeline, rerun cuvil-debug diff MODEL -O... --tui",
        )
    doc = report if report is not None else read_report(path)
    return report_ir(doc, path), report_base(doc, path)


def build_app(
    module: Module,
    base: Path | None,
    report: dict[str, Any] | None = None,
    where: str = "--diff",
) -> CuvilTUI:
    """The app on `module`, with `report` overlaid (checked to name its FX nodes)."""
    from .app import CuvilTUI  # Textual is imported only when a UI is made
    from .data import ModuleView

    view = ModuleView(module, base)
    return CuvilTUI(view, diff=overlay(report, view, where))


def overlay(report: dict[str, Any] | None, view, where: str = "--diff"):
    """`report` over `view` (a DiffOverlay), checked to name FX nodes of its ops;
    None without a report."""
    if report is None:
        return None
    from .diffdata import DiffOverlay

    found = DiffOverlay(report, view)
    if found.matched() == 0:
        raise CuvilError(
            f"the diff report (of {report.get('model')}) names no FX node of "
            "the target's ops: a report of another model?",
            where=where,
        )
    return found


def report_app(what: str, run: Callable[[], tuple[Any, int]]) -> CuvilTUI:
    """`cuvil-debug diff --tui`'s app: `run` (the diff, returning its DiffReport and
    exit code) runs in the app's worker; the app opens on the report it makes. The
    diff's exit code is kept as the app's `diff_exit`."""
    from .app import CuvilTUI
    from .data import ModuleView
    from .loading import Loaded

    def loader(progress) -> Loaded:
        from ..diff.render import report_json

        progress("diffing: capture, every stage, every node")
        report, app.diff_exit = run()
        doc = report_json(report)
        view = ModuleView(report_ir(doc, "diff"), Path(doc.get("cwd") or os.getcwd()))
        return Loaded(view, diff=overlay(doc, view, what))

    app = CuvilTUI(loader=loader, what=f"the diff of {what}")
    app.diff_exit = 0
    return app


def run_diff_tui(what: str, run: Callable[[], tuple[Any, int]]) -> int:
    """Run `report_app`; the diff's exit code (its error, raised, when it failed)."""
    from .command import outcome

    app = report_app(what, run)
    app.run()
    outcome(app)  # raises the diff's error, if it failed in the worker
    return app.diff_exit
