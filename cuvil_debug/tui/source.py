"""Source pane: the model's Python file, scrolled to the selected op's line, the line
marked (a read-only TextArea; the marked line is its selection). Enter on a line (or a
double click) picks that line: the app selects the ops made from it (`LinePicked`)."""

from __future__ import annotations

from textual.binding import Binding
from textual.events import Click
from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import Selection

from .data import ModuleView, OpInfo, SourceRef

__all__ = ["SourcePane"]


class SourcePane(TextArea):
    BINDINGS = [Binding("enter", "pick_line", "ops of this line", show=False)]

    class LinePicked(Message):
        def __init__(self, file: str, line: int) -> None:
            super().__init__()
            self.file = file
            self.line = line  # 1-based

    def __init__(self, view: ModuleView, **kw) -> None:
        super().__init__(
            "", read_only=True, show_line_numbers=True, soft_wrap=False, **kw
        )
        self.view = view
        self.file: str | None = None
        self.line: int | None = None  # 1-based, the marked line

    def show(self, info: OpInfo) -> None:
        src = info.source
        if src is None:
            self._message("(this op has no source location)")
            return
        lines = self.view.source_lines(src.file)
        if lines is None:
            self._message(f"(cannot read {src.file})")
            return
        self._load(src, lines)
        row = min(src.line, len(lines)) - 1
        end = len(lines[row]) if 0 <= row < len(lines) else 0
        # the cursor (the selection's end) at column 0: no horizontal scroll
        self.selection = Selection((row, end), (row, 0))
        self.line = src.line
        self.scroll_to(x=0, y=max(0, row - self.size.height // 2), animate=False)

    def _load(self, src: SourceRef, lines: list[str]) -> None:
        if self.file != src.file:
            self.file = src.file
            self.border_title = src.file
            self.load_text("\n".join(lines))
            if self.language is None and src.file.endswith(".py"):
                self._try_language("python")

    def _try_language(self, name: str) -> None:
        try:
            self.language = name
        except Exception:  # no tree-sitter grammar installed: plain text
            self.language = None

    def _message(self, text: str) -> None:
        self.file, self.line = None, None
        self.border_title = "source"
        self.load_text(text)

    def action_pick_line(self) -> None:
        if self.file is not None:
            self.post_message(self.LinePicked(self.file, self.cursor_location[0] + 1))

    def on_click(self, event: Click) -> None:
        if event.chain == 2:
            self.action_pick_line()

    @property
    def marked_text(self) -> str:
        """The text of the marked line ('' when none)."""
        return self.selected_text if self.line is not None else ""
