"""The diff section of the op inspector: the selected op's FX nodes in the selected
stage and mode (verdict, introduced or inherited, max abs/rel, ULP, cosine, SQNR,
NaN/Inf counts), and the first divergence when the op holds it. Also the IR view's
colour of each verdict (`op_style`)."""

from __future__ import annotations

from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from ..diff.status import Verdict
from .data import OpInfo
from .diffdata import DiffOverlay

__all__ = ["DiffSection", "VERDICT_STYLES", "FIRST_STYLE", "op_style"]

# the IR view tints a line's background, so the syntax colours stay readable; the
# foreground colours follow the diff's table (diff/render/cells.py STYLE). Each tint
# is picked so that on a 16-colour terminal it becomes its verdict's own ANSI colour
# (red, magenta, yellow, green: tests/cuvil_debug/tui/test_tui_colours.py)
VERDICT_STYLES: dict[Verdict, Style] = {
    Verdict.INTRODUCED: Style(bgcolor="#5f0000"),
    Verdict.FAILED: Style(bgcolor="#5f005f"),
    Verdict.INHERITED: Style(bgcolor="#5f5f00"),
    Verdict.OK: Style(bgcolor="#005f00"),
}
FIRST_STYLE = Style(bgcolor="#af0000", bold=True, underline=True)
TEXT_STYLES = {
    Verdict.INTRODUCED: "bold red",
    Verdict.FAILED: "magenta",
    Verdict.INHERITED: "yellow",
    Verdict.OK: "green",
    Verdict.NONE: "dim",
}


def op_style(overlay: DiffOverlay, info: OpInfo) -> Style | None:
    """The IR view's style of `info`'s line: its verdict's tint; the first divergence
    brighter, bold and underlined; no style for an op the report does not know."""
    if overlay.is_first(info):
        return FIRST_STYLE
    verdict = overlay.verdict(info)
    return None if verdict is None else VERDICT_STYLES.get(verdict)


class DiffSection(Static):
    """Mounted above the inspector's rows when the app has a report."""

    DEFAULT_CSS = "DiffSection { margin-bottom: 1; }"

    def __init__(self, overlay: DiffOverlay, **kw) -> None:
        super().__init__(Text("no op selected", "dim"), **kw)
        self.overlay = overlay
        self.rows: list[tuple[str, str]] = []

    def show(self, info: OpInfo) -> None:
        self.rows = self.overlay.describe(info)
        table = Table.grid(padding=(0, 1))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for key, value in self.rows:
            table.add_row(key, self._value(key, value))
        self.update(table)

    @staticmethod
    def _value(key: str, value: str) -> Text:
        if key == "node":
            name, _, verdict = value.rpartition(": ")
            style = TEXT_STYLES.get(verdict, "")  # a Verdict is its string value
            return Text.assemble(name + (": " if name else ""), (verdict, style))
        return Text(value, "bold red" if key == "first" else "")

    def text(self) -> str:
        """The rows as plain text, one per line."""
        return "\n".join(f"{k}: {v}" for k, v in self.rows)
