"""The diff's stage progress on stderr: plain lines for a CI log (``--progress``), or
one line rewritten in place when stderr is a terminal.

The engine calls ``progress(phase)`` as each phase starts and ``progress(DONE)`` at the
end (`run_diff`'s `progress`); in a worker process those calls become channel events
that the parent hands to its `StageProgress` (isolated.py). Nothing goes to stdout.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

__all__ = ["DONE", "PHASES", "StageProgress", "progress_mode"]

DONE = "done"
# the engine's phases, in the order it runs them (each is optional but capture)
PHASES = {
    "load": "start, load the model",  # said by the command itself, before run_diff
    "capture": "capture (trace, eager values)",
    "lower": "lower to Cuvil IR",
    "passes": "passes",
    "native-codegen": "native codegen",
    "truth": "float64 truth",
    "opt": "compare opt",
    "ir": "compare ir",
    "native": "native build + compare",
    "analysis": "analysis (first divergence, culprit)",
}
PREFIX = "cuvil-debug diff: "
_CLEAR = "\r\x1b[K"


def progress_mode(args, stream: TextIO | None = None) -> str | None:
    """'plain' (--progress), 'live' (stderr is a terminal) or None (no progress)."""
    if getattr(args, "progress", False):
        return "plain"
    if getattr(args, "tui", False):  # the TUI has its own progress pane
        return None
    stream = stream or sys.stderr
    return "live" if stream.isatty() else None


class StageProgress:
    """Says each phase as it starts and finishes on `stream`: in ``plain`` mode one
    line each (no carriage returns), in ``live`` mode one line redrawn in place and
    erased at the end. `write` puts other output (the model's prints) above it. The
    first phase, "load" (Python, torch and the model starting), begins at once."""

    def __init__(self, mode: str, stream: TextIO | None = None) -> None:
        self.mode, self.stream = mode, stream or sys.stderr
        self.phase: str | None = None
        self.started = self.begun = time.perf_counter()
        self._lock = threading.Lock()
        self._shown = ""  # the live line on screen, if any
        self("load")

    def __call__(self, phase: str) -> None:
        with self._lock:
            now = time.perf_counter()
            if self.phase is not None and self.mode == "plain":
                self._line(f"{PHASES.get(self.phase, self.phase)} done", now)
            self.phase, self.started = (None if phase == DONE else phase), now
            if phase == DONE:
                self._finish(now)
            elif self.mode == "plain":
                self.stream.write(f"{PREFIX}{PHASES.get(phase, phase)}...\n")
            else:
                self._draw(f"{PREFIX}{PHASES.get(phase, phase)}... ")
            self.stream.flush()

    def write(self, text: str) -> None:
        """Other output: above the live line, which is drawn again after it."""
        with self._lock:
            shown = self._shown
            if shown:
                self.stream.write(_CLEAR)
            self.stream.write(text)
            if shown and text.endswith("\n"):
                self.stream.write(shown)
            else:
                self._shown = ""
            self.stream.flush()

    def close(self) -> None:
        """Erase a live line left behind (a worker that died mid-phase)."""
        with self._lock:
            if self._shown:
                self.stream.write(_CLEAR)
                self.stream.flush()
                self._shown = ""

    def _line(self, what: str, now: float) -> None:
        self.stream.write(f"{PREFIX}{what} ({now - self.started:.1f} s)\n")

    def _draw(self, text: str) -> None:
        self.stream.write(_CLEAR + text)
        self._shown = text

    def _finish(self, now: float) -> None:
        if self.mode == "plain":
            self.stream.write(f"{PREFIX}finished in {now - self.begun:.1f} s\n")
        elif self._shown:
            self.stream.write(_CLEAR)
            self._shown = ""
