"""The pass timeline's diff pane: a pass's before/after rows (passdiff.py), unified or
side by side, the followed op's lines marked, a cursor row to pick an op from.

A ScrollView drawing only the rows on screen, like the IR view: the diff of a large
module's pass lays out without measuring its lines.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from .passdiff import DiffRow

__all__ = ["DiffView", "fold_loc"]

STYLES = {"-": "red", "+": "green", "~": "yellow", "@": "dim cyan", " ": ""}
MARKED = Style(bold=True, bgcolor="grey23")
CURSOR = Style(reverse=True)


def fold_loc(line: str) -> str:
    """The line without its trailing ``loc(...)``."""
    head, sep, _ = line.rpartition(" loc(")
    return head if sep and line.endswith(")") else line


class DiffView(ScrollView, can_focus=True):
    """Rows of one pass's diff; `marked` rows show the followed op, `cursor` is the row
    enter follows."""

    BINDINGS = [
        Binding("up", "move(-1)", show=False),
        Binding("down", "move(1)", show=False),
        Binding("pageup", "move(-20)", show=False),
        Binding("pagedown", "move(20)", show=False),
        Binding("home", "move(-1000000000)", show=False),
        Binding("end", "move(1000000000)", show=False),
    ]

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.rows: list[DiffRow] = []
        self.marked: set[int] = set()  # row indices
        self.cursor = 0
        self.side = False
        self.fold_locs = True

    def show(
        self, rows: list[DiffRow], marked_before: set[int], marked_after: set[int]
    ):
        """Show `rows`; a row is marked when its before line is in `marked_before` or
        its after line in `marked_after`. The cursor goes to the first marked row."""
        self.rows = rows
        self.marked = {
            k
            for k, r in enumerate(rows)
            if r.left in marked_before or r.right in marked_after
        }
        self.cursor = min(self.marked, default=0)
        self._layout()
        self.scroll_to_region(Region(0, self.cursor, 1, 1), animate=False, force=True)

    def _layout(self) -> None:
        width = max((len(self._text(r)) for r in self.rows), default=0)
        self.virtual_size = Size(0 if self.side else width + 2, len(self.rows))
        self.refresh()

    def _text(self, row: DiffRow) -> str:
        if row.kind == "@":
            return row.left_text
        cut = fold_loc if self.fold_locs else str
        if self.side:
            return f"{cut(row.left_text)}\t{cut(row.right_text)}"
        return f"{row.kind} {cut(row.right_text if row.kind == '+' else row.left_text)}"

    def plain(self, k: int) -> str:
        """Row `k` as the view writes it (side by side: the two halves tab-separated)."""
        return self._text(self.rows[k])

    def render_line(self, y: int) -> Strip:
        k = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        if not 0 <= k < len(self.rows):
            return Strip.blank(width)
        row = self.rows[k]
        text = self._side_text(row, width) if self.side else self._unified(row)
        segments = list(text.render(self.app.console, end=""))
        x = 0 if self.side else self.scroll_offset.x
        strip = Strip(segments).crop(x, x + width).extend_cell_length(width)
        if k in self.marked:
            strip = strip.apply_style(MARKED)
        return strip.apply_style(CURSOR) if k == self.cursor else strip

    def _unified(self, row: DiffRow) -> Text:
        return Text(self._text(row), STYLES[row.kind], no_wrap=True)

    def _side_text(self, row: DiffRow, width: int) -> Text:
        if row.kind == "@":
            return Text(row.left_text, STYLES["@"], no_wrap=True)
        half = max(1, (width - 3) // 2)
        left, right = self._text(row).split("\t")
        text = Text(no_wrap=True)
        text.append(left[:half].ljust(half), "red" if row.kind in "-~" else "")
        text.append(" │ ", "dim")
        text.append(right[:half], "green" if row.kind in "+~" else "")
        return text

    def toggle_locs(self) -> None:
        self.fold_locs = not self.fold_locs
        self._layout()

    def action_move(self, delta: int) -> None:
        if not self.rows:
            return
        old, self.cursor = (
            self.cursor,
            max(0, min(len(self.rows) - 1, self.cursor + delta)),
        )
        for k in (old, self.cursor):
            self.refresh(Region(0, k - self.scroll_offset.y, self.size.width, 1))
        self.scroll_to_region(Region(0, self.cursor, 1, 1), animate=False, force=True)

    @property
    def current(self) -> DiffRow | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None
