"""The terminal report (rich): a summary table, then each failure with its root
cause, the chain from that line to the error, and the fix."""

from __future__ import annotations

import io
import os
from typing import TextIO

from rich.console import Console, Group
from rich.measure import Measurement
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .results import where

__all__ = ["print_report", "report_console"]

_STYLE = {
    "ok": "green",
    "failed": "red",
    "error": "yellow",
    "timeout": "magenta",
    "crash": "magenta",
}


def report_console(doc: dict, file: TextIO | None = None) -> Console:
    """The console the report goes to (`file`, default stdout). A terminal: its width.
    A pipe or a file (a CI log): ``COLUMNS`` when set, else as wide as the summary table
    needs to show every model and root cause whole (at least 80 columns), not the 80
    columns that cut each row to ``samples/failures/…``."""
    console = Console(file=file)
    if console.is_terminal or os.environ.get("COLUMNS", "").strip().isdigit():
        return console
    wide = Console(file=io.StringIO(), width=100_000)
    need = Measurement.get(wide, wide.options, _table(doc)).maximum
    return Console(file=file, width=max(80, need))


def print_report(doc: dict, console: Console | None = None) -> None:
    console = console or report_console(doc)
    console.print(_table(doc))
    for r in doc["results"]:
        if r["status"] == "failed":
            console.print(_panel(r))
        elif r["status"] != "ok":
            console.print(
                Text(
                    f"{r['model']}: {r['status']}: {r.get('message', '')}",
                    style=_STYLE[r["status"]],
                )
            )


def _table(doc: dict) -> Table:
    static = ", static prediction" if doc.get("mode") == "static" else ""
    t = Table(title=f"cuvil triage ({doc['frontend']}{static})", title_justify="left")
    for col in ("model", "status", "category", "root cause", "conf."):
        t.add_column(col)
    for r in doc["results"]:
        loc = r.get("location") or {}
        t.add_row(
            _relative(r["model"]),
            Text(r["status"], style=_STYLE[r["status"]]),
            r.get("category") or r.get("message", "")[:60],
            where(loc) if loc else "",
            f"{r['confidence']:.0%}" if "confidence" in r else "",
        )
    return t


def _relative(model: str) -> str:
    """A model file below the current directory as a path from it (as root causes
    are shown); anything else as given."""
    if not os.path.isabs(model):
        return model
    try:
        rel = os.path.relpath(model)
    except ValueError:  # another drive
        return model
    return model if rel.startswith("..") else rel


def _panel(r: dict) -> Panel:
    lines = [Text(r["message"], style="bold"), Text(f"fix: {r['hint']}", style="cyan")]
    for i, root in enumerate(r.get("root_causes") or [], 1):
        lines.append(Text(f"candidate {i} ({root['confidence']:.0%}):", style="bold"))
        lines += [Text(f"  {where(c)}  {c['text']}") for c in root["chain"]]
    title = f"{_relative(r['model'])} — {r['category']} ({r['confidence']:.0%})"
    return Panel(Group(*lines), title=title, title_align="left", border_style="red")
