"""The terminal report (rich): a summary table, then each failure with its root
cause, the chain from that line to the error, and the fix."""

from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .results import where

__all__ = ["print_report"]

_STYLE = {
    "ok": "green",
    "failed": "red",
    "error": "yellow",
    "timeout": "magenta",
    "crash": "magenta",
}


def print_report(doc: dict, console: Console | None = None) -> None:
    console = console or Console()
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
            r["model"],
            Text(r["status"], style=_STYLE[r["status"]]),
            r.get("category") or r.get("message", "")[:60],
            where(loc) if loc else "",
            f"{r['confidence']:.0%}" if "confidence" in r else "",
        )
    return t


def _panel(r: dict) -> Panel:
    lines = [Text(r["message"], style="bold"), Text(f"fix: {r['hint']}", style="cyan")]
    for i, root in enumerate(r.get("root_causes") or [], 1):
        lines.append(Text(f"candidate {i} ({root['confidence']:.0%}):", style="bold"))
        lines += [Text(f"  {where(c)}  {c['text']}") for c in root["chain"]]
    title = f"{r['model']} — {r['category']} ({r['confidence']:.0%})"
    return Panel(Group(*lines), title=title, title_align="left", border_style="red")
