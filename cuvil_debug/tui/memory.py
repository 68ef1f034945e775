"""Memory view: the arena plan as a timeline (memdata.py), a screen of its own (key m).

One row per buffer (inputs, arena results and scratch by first kernel, outputs, params),
one column per kernel in call order, a bar over each buffer's lifetime; ``◆`` marks a
kernel that writes its result in place into the buffer, ``↺`` a buffer that reuses the
arena space of one that died before it. The cursor's kernel is the column under ``▼``;
its buffers (what it writes and reads) are bold. Enter selects that kernel's op in the
main view; escape goes back. The chart is a ScrollView drawing only the lines on screen.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Click
from textual.geometry import Region, Size
from textual.message import Message
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Footer, Static

from .data import OpInfo
from .keymap import KEYMAP
from .memdata import Buffer, Kernel, MemoryModel, kib

__all__ = ["MemoryChart", "MemoryScreen", "detail"]

CELL = 2  # characters per kernel column
NAME_W = 20
LABEL = NAME_W + 11  # name, kind, reuse mark, spaces
HEADER = 2  # the kernel ruler and the cursor's column mark
KIND_COLOR = {
    "input": "green",
    "output": "yellow",
    "arena": "dodger_blue1",
    "scratch": "magenta",
    "param": "grey50",
    "const": "grey50",
}
CURSOR = Style(reverse=True)
DIM = Style(dim=True)


def _label(buf: Buffer) -> str:
    name = buf.name if len(buf.name) <= NAME_W else buf.name[: NAME_W - 1] + "…"
    mark = "↺" if buf.reuses is not None else " "
    return f"{name:<{NAME_W}} {buf.kind:<7} {mark} "


class MemoryChart(ScrollView, can_focus=True):
    """Rows = `model.buffers`, columns = `model.kernels`; the cursor is (row, col)."""

    BINDINGS = [
        Binding("up", "move(-1, 0)", show=False),
        Binding("down", "move(1, 0)", show=False),
        Binding("left", "move(0, -1)", show=False),
        Binding("right", "move(0, 1)", show=False),
        Binding("pageup", "move(-20, 0)", show=False),
        Binding("pagedown", "move(20, 0)", show=False),
        Binding("home", "move(0, -1000000)", show=False),
        Binding("end", "move(0, 1000000)", show=False),
    ]

    class Moved(Message):
        def __init__(self, buffer: Buffer, kernel: Kernel) -> None:
            super().__init__()
            self.buffer, self.kernel = buffer, kernel

    def __init__(self, model: MemoryModel, row: int = 0, col: int = 0, **kw) -> None:
        super().__init__(**kw)
        self.model = model
        self.row, self.col = row, col
        # one spare column: the last kernel's stays whole with the offset snapped
        self.virtual_size = Size(
            LABEL + CELL * (len(model.kernels) + 1), len(model.buffers) + HEADER
        )

    @property
    def buffer(self) -> Buffer:
        return self.model.buffers[self.row]

    @property
    def kernel(self) -> Kernel:
        return self.model.kernels[self.col]

    def on_mount(self) -> None:
        self.call_after_refresh(self._show_cursor)

    # ---- drawing --------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if y < HEADER:
            label, bars = self._header(y)
        else:
            row = self.scroll_offset.y + y - HEADER
            if not 0 <= row < len(self.model.buffers):
                return Strip.blank(width)
            label, bars = self._row(row)
        x = -(-self.scroll_offset.x // CELL) * CELL  # whole kernel columns only
        bars = bars.crop(x, x + max(0, width - LABEL))
        return Strip([*label, *bars]).extend_cell_length(width).crop(0, width)

    def _header(self, y: int) -> tuple[list[Segment], Strip]:
        n = len(self.model.kernels)
        if y == 0:
            ruler = [" "] * (n * CELL)
            for k in range(0, n, 5):
                for i, ch in enumerate(str(k)):
                    if k * CELL + i < len(ruler):
                        ruler[k * CELL + i] = ch
            head = f"{'buffer':<{NAME_W}} {'kind':<7}   "
            return [Segment(head, DIM)], Strip([Segment("".join(ruler), DIM)])
        marks = "".join("▼ " if k == self.col else "  " for k in range(n))
        return [Segment(" " * LABEL)], Strip([Segment(marks, Style(bold=True))])

    def _row(self, row: int) -> tuple[list[Segment], Strip]:
        buf = self.model.buffers[row]
        mine = buf in self.kernel.buffers
        label_style = CURSOR if row == self.row else Style(bold=mine, dim=not mine)
        color = KIND_COLOR.get(buf.kind, "white")
        live = Style(color=color, bold=mine)
        inplace = Style(color="bright_white", bgcolor=color, bold=True)
        marks = set(buf.inplace)
        segments = []
        for k in range(len(self.model.kernels)):
            if k in marks:
                text, style = "◆" * CELL, inplace
            elif buf.live_at(k):
                text, style = "█" * CELL, live
            else:
                text, style = ("│ " if k == self.col else "· "), DIM
            if row == self.row and k == self.col:
                style = style + CURSOR
            segments.append(Segment(text, style))
        return [Segment(_label(buf), label_style)], Strip(segments)

    def row_text(self, row: int) -> str:
        """Row `row` as plain text, label and every kernel's cell (what tests read)."""
        label, bars = self._row(row)
        return "".join(seg.text for seg in [*label, *bars])

    # ---- the cursor -----------------------------------------------------------------
    def action_move(self, drow: int, dcol: int) -> None:
        if not self.model.buffers or not self.model.kernels:
            return
        self.row = max(0, min(len(self.model.buffers) - 1, self.row + drow))
        if drow and self.buffer.first >= 0:  # a buffer: the kernel that first uses it
            self.col = self.buffer.first
        self.col = max(0, min(len(self.model.kernels) - 1, self.col + dcol))
        self._show_cursor()

    def _show_cursor(self) -> None:
        region = Region(self.col * CELL, self.row, CELL + LABEL, 1 + HEADER)
        self.scroll_to_region(region, animate=False, force=True)
        self.refresh()
        if self.model.buffers and self.model.kernels:
            self.post_message(self.Moved(self.buffer, self.kernel))

    def on_click(self, event: Click) -> None:
        row = self.scroll_offset.y + event.y - HEADER
        col = (-(-self.scroll_offset.x // CELL) * CELL + event.x - LABEL) // CELL
        if event.y >= HEADER and 0 <= row < len(self.model.buffers):
            self.row = row
        if event.x >= LABEL and 0 <= col < len(self.model.kernels):
            self.col = col
        self._show_cursor()


def _inert() -> list[Binding]:
    """The main view's keys do nothing here (their panes are on the other screen)."""
    keep = {"quit", "help", "memory", "focus_next"}
    return [Binding(k.key, "inert", show=False) for k in KEYMAP if k.action not in keep]


class MemoryScreen(Screen[OpInfo | None]):
    """The memory plan of the module; dismissed with the op to select (enter) or None
    (escape)."""

    BINDINGS = [
        Binding("escape", "close", "back"),
        Binding("enter", "pick", "select the kernel's op"),
        *_inert(),
    ]
    DEFAULT_CSS = """
    MemoryScreen #mem-head, MemoryScreen #mem-detail { height: auto; padding: 0 1; }
    MemoryScreen #mem-detail { dock: bottom; margin-bottom: 1; }
    MemoryScreen MemoryChart { height: 1fr; border: round $accent; }
    """

    def __init__(self, model: MemoryModel, selected: OpInfo | None = None) -> None:
        super().__init__()
        self.model = model
        self.start = _start(model, selected)

    def compose(self) -> ComposeResult:
        yield Static(self._summary(), id="mem-head")
        if self.model.error is None and self.model.kernels:
            yield MemoryChart(self.model, *self.start, id="mem-chart")
        yield Static("", id="mem-detail")
        yield Footer()

    def on_mount(self) -> None:
        if self.model.error is None and self.model.kernels:
            self.query_one(MemoryChart).focus()

    def _summary(self) -> Text:
        m = self.model
        if m.error is not None:
            return Text(f"no memory plan: {m.error}", "bold red")
        if not m.kernels:
            return Text("no kernels: the main function computes nothing", "bold")
        peak, at = m.peak()
        text = Text(f"arena {kib(m.arena_bytes)}", "bold")
        text.append(f"  peak live {kib(peak)} at kernel {at} {m.kernels[at].symbol}")
        text.append(f"  {len(m.kernels)} kernels, {len(m.buffers)} buffers")
        if m.copies:
            text.append(f", {m.copies} output copies after the last kernel")
        text.append("   █ live  ◆ in place  ↺ reuses arena space", "dim")
        return text

    def on_memory_chart_moved(self, event: MemoryChart.Moved) -> None:
        self.query_one("#mem-detail", Static).update(detail(event.buffer, event.kernel))

    def action_pick(self) -> None:
        chart = self.query(MemoryChart)
        self.dismiss(chart.first().kernel.info if chart else None)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_inert(self) -> None:
        self.notify("escape goes back to the IR view", severity="information")


def _start(model: MemoryModel, selected: OpInfo | None) -> tuple[int, int]:
    """The cursor on the selected op's kernel and its first result's buffer."""
    if selected is None or model.error is not None or not model.buffers:
        return 0, 0
    k = model.kernel_of(selected)
    if k is None:
        return 0, 0
    buf = model.buffer_of(k.op.results[0]) if k.op.results else None
    if buf is None and k.buffers:
        buf = k.buffers[0]
    return (buf.index if buf is not None else 0), k.index


def detail(buf: Buffer, k: Kernel) -> Text:
    """The two lines under the chart: the cursor's kernel and its buffer."""
    text = Text()
    text.append(f"kernel {k.index} ", "bold")
    text.append(f"{k.symbol}  {k.op.name}", "cyan")
    if k.op.loc.nodes:
        text.append(f"  ({', '.join(k.op.loc.nodes)})", "dim")
    text.append("\nbuffer ", "bold")
    text.append(f"{buf.name}  {buf.where}  {buf.lifetime}")
    if len(buf.values) > 1:
        text.append(f"  holds {', '.join(buf.values)}")
    if buf.inplace:
        text.append(f"  in place at kernel {', '.join(map(str, buf.inplace))}")
    if buf.reuses is not None:
        text.append(f"  ↺ reuses the space of {buf.reuses.name}")
    return text
