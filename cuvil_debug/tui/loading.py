"""Loading a target in a worker thread, so the UI draws at once and never blocks: the
app shows `LoadingPane` (what is being done, a spinner) until the loader returns.

A loader is ``load(progress) -> Loaded`` (the view and what is shown over it); it calls ``progress("optimizing: cse")``
from its thread as it goes (thread-safe: the message is handed to the app's loop). An
exception in the loader ends the app; `run_tui` re-raises it after the terminal is
restored, so a bad target is the same one error line and exit code as without a UI.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import LoadingIndicator, Static

from .data import ModuleView

__all__ = ["Loaded", "LoadingPane", "Loader", "Progress"]


@dataclass
class Loaded:
    """What a loader hands the app: the module's view and the data shown over it."""

    view: ModuleView
    diff: Any = None  # a diffdata.DiffOverlay, or None
    history: Any = None  # a history.PassHistory (None: no pipeline ran)


Progress = Callable[[str], None]
Loader = Callable[[Progress], Loaded]


class LoadingPane(Vertical):
    DEFAULT_CSS = """
    LoadingPane { align: center middle; }
    LoadingPane > Static { width: auto; height: auto; padding: 0 2; }
    LoadingPane > LoadingIndicator { height: 3; }
    """

    def __init__(self, what: str, **kw) -> None:
        super().__init__(**kw)
        self.what = what
        self.steps: list[str] = []  # every progress message, in order

    def compose(self) -> ComposeResult:
        yield Static(Text(f"loading {self.what}", "bold"), id="loading-title")
        yield LoadingIndicator()
        yield Static("", id="loading-step")

    def step(self, message: str) -> None:
        self.steps.append(message)
        self.query_one("#loading-step", Static).update(Text(message, "dim"))
