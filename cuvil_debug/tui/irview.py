"""IR view: the selected function's ops, one line each, the selected op highlighted.

A ScrollView that draws only the lines on screen and knows its height without measuring
anything (one line per op, no wrapping): a function of 10,000 ops opens and lays out in
constant time, where an OptionList measured every option on each layout
(docs/TUI.md). ``loc(...)`` is folded by default (`fold_locs`).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.events import Click
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from .data import FunctionView, OpInfo

__all__ = ["IRView", "ir_line"]

GUTTER = Segment("  ")
MARK = Segment("* ", Style(bold=True, color="yellow"))  # a bookmark


def ir_line(info: OpInfo, *, fold_locs: bool = True) -> Text:
    """The op's printed line, the op name and value names coloured."""
    text = Text(no_wrap=True, overflow="ellipsis")
    head, sep, rest = info.text.partition(" = ")
    if not sep:
        head, rest = "", info.text
    if head:
        text.append(head, "bold cyan")
        text.append(" = ")
    name, paren, tail = rest.partition("(")
    text.append(name, "bold magenta")
    text.append(paren + tail)
    if not fold_locs:
        text.append(" " + info.loc_text, "dim")
    return text


class IRView(ScrollView, can_focus=True):
    """The ops of one function; moving the highlight picks an op (`Picked`)."""

    BINDINGS = [
        Binding("up", "move(-1)", show=False),
        Binding("down", "move(1)", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
        Binding("home", "move(-1000000000)", show=False),
        Binding("end", "move(1000000000)", show=False),
    ]
    HIGHLIGHT = Style(reverse=True)

    class Picked(Message):
        def __init__(self, info: OpInfo) -> None:
            super().__init__()
            self.info = info

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.function: FunctionView | None = None
        self.fold_locs = True
        self.highlighted: int | None = None
        # OpInfo.index of the bookmarked ops: "*" in the gutter
        self.bookmarks: set[int] = set()
        self._cache: dict[int, Text] = {}  # op position -> its rendered line
        # an overlay's style of an op's whole line (the diff's verdict tint), or None
        self.op_style: Callable[[OpInfo], Style | None] | None = None

    def show(self, fn: FunctionView) -> None:
        """Show `fn`'s ops (no-op when it is already shown)."""
        if fn is self.function:
            return
        self.function = fn
        self.highlighted = None
        self._fill()

    def _fill(self) -> None:
        fn = self.function
        if fn is None:
            return
        self.border_title = f"@{fn.name}"
        self._cache.clear()
        width = max((len(i.text) for i in fn.ops), default=0)
        self.virtual_size = Size(width + 2 + len(GUTTER), len(fn.ops))
        self.refresh()

    def line(self, pos: int) -> Text:
        """The rendered line of the op at `pos` (what the view draws)."""
        if pos not in self._cache:
            self._cache[pos] = ir_line(self.function.ops[pos], fold_locs=self.fold_locs)
        return self._cache[pos]

    def render_line(self, y: int) -> Strip:
        fn = self.function
        pos = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        if fn is None or not 0 <= pos < len(fn.ops):
            return Strip.blank(width)
        mark = MARK if fn.ops[pos].index in self.bookmarks else GUTTER
        segments = [mark, *self.line(pos).render(self.app.console, end="")]
        strip = Strip(segments).crop(self.scroll_offset.x, self.scroll_offset.x + width)
        strip = strip.extend_cell_length(width)
        style = self.op_style(fn.ops[pos]) if self.op_style is not None else None
        if style is not None:  # under the line's own colours
            strip = strip.apply_style(style)
        return strip.apply_style(self.HIGHLIGHT) if pos == self.highlighted else strip

    def toggle_locs(self) -> None:
        self.fold_locs = not self.fold_locs
        self._fill()

    def select_op(self, info: OpInfo) -> None:
        """Highlight `info` (showing its function) and scroll it into view."""
        fn = self.function
        if fn is None or fn.name != info.func:
            return
        self._highlight(info.pos, announce=False)

    def _highlight(self, pos: int, announce: bool) -> None:
        old, self.highlighted = self.highlighted, pos
        for p in (old, pos):
            if p is not None:
                self.refresh(Region(0, p - self.scroll_offset.y, self.size.width, 1))
        self.scroll_to_region(Region(0, pos, 1, 1), animate=False, force=True)
        if announce and self.selected is not None:
            self.post_message(self.Picked(self.selected))

    def action_move(self, delta: int) -> None:
        fn = self.function
        if fn is None or not fn.ops:
            return
        start = self.highlighted if self.highlighted is not None else -1
        self._highlight(max(0, min(len(fn.ops) - 1, start + delta)), announce=True)

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self.scrollable_content_region.height - 1))

    def on_click(self, event: Click) -> None:
        fn = self.function
        pos = self.scroll_offset.y + event.y
        if fn is not None and 0 <= pos < len(fn.ops):
            self._highlight(pos, announce=True)

    @property
    def selected(self) -> OpInfo | None:
        if self.function is None or self.highlighted is None:
            return None
        return self.function.ops[self.highlighted]
