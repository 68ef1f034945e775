"""The `?` screen: the keymap (keymap.KEYMAP), one row per key."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from .keymap import help_rows

__all__ = ["HelpScreen"]


def keymap_table() -> Table:
    table = Table(title="cuvil-debug tui: keys", show_header=False, box=None)
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for key, description in help_rows():
        table.add_row(key, description)
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "close", "close"),
        Binding("q", "close", "close"),
        Binding("question_mark", "close", "close"),
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 80; max-width: 95%; height: auto; max-height: 90%;
        border: round $accent; padding: 0 1; background: $surface;
    }
    HelpScreen Static { width: 100%; height: auto; }
    """

    def compose(self) -> ComposeResult:
        # scrolls (arrows, page keys, the wheel) when the keymap is taller than the screen
        with VerticalScroll(id="keys"):
            yield Static(keymap_table(), id="keymap")

    def on_mount(self) -> None:
        self.query_one("#keys").focus()

    def action_close(self) -> None:
        self.dismiss(None)
