"""IR view: the selected function's ops, one line each, the selected op highlighted.

An OptionList (a ScrollView that renders only the lines on screen), so a function of
10,000 ops is one widget, not 10,000. ``loc(...)`` is folded by default (`fold_locs`).
"""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from .data import FunctionView, OpInfo

__all__ = ["IRView", "ir_line"]


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


class IRView(OptionList):
    """The ops of one function; moving the highlight picks an op (`Picked`)."""

    class Picked(Message):
        def __init__(self, info: OpInfo) -> None:
            super().__init__()
            self.info = info

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.function: FunctionView | None = None
        self.fold_locs = True

    def show(self, fn: FunctionView) -> None:
        """Show `fn`'s ops (no-op when it is already shown)."""
        if fn is self.function:
            return
        self.function = fn
        self._fill()

    def _fill(self) -> None:
        fn = self.function
        if fn is None:
            return
        self.border_title = f"@{fn.name}"
        with self.prevent(OptionList.OptionHighlighted):
            self.clear_options()
            self.add_options(
                Option(ir_line(i, fold_locs=self.fold_locs), id=str(i.pos))
                for i in fn.ops
            )

    def toggle_locs(self) -> None:
        keep = self.highlighted
        self.fold_locs = not self.fold_locs
        self._fill()
        if keep is not None:
            with self.prevent(OptionList.OptionHighlighted):
                self.highlighted = keep

    def select_op(self, info: OpInfo) -> None:
        """Highlight `info` (showing its function) and scroll it into view."""
        fn = self.function
        if fn is None or fn.name != info.func:
            return
        with self.prevent(OptionList.OptionHighlighted):
            self.highlighted = info.pos
        self.scroll_to_highlight()

    @property
    def selected(self) -> OpInfo | None:
        if self.function is None or self.highlighted is None:
            return None
        return self.function.ops[self.highlighted]

    def on_option_list_option_highlighted(
        self, event: OptionList.OptionHighlighted
    ) -> None:
        event.stop()
        info = self.selected
        if info is not None:
            self.post_message(self.Picked(info))
