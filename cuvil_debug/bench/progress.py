"""The progress of a bench run on stderr: a bar redrawn in place on a terminal, one
plain line per step when forced (``--progress``) elsewhere, nothing otherwise."""

from __future__ import annotations

import sys
from typing import TextIO

__all__ = ["Progress"]

WIDTH = 30


class Progress:
    """`total` steps; ``step(label)`` after each, ``done()`` at the end."""

    def __init__(self, total: int, force: bool = False, out: TextIO | None = None):
        self.out = out or sys.stderr
        self.total, self.count = max(total, 1), 0
        self.tty = self.out.isatty()
        self.enabled = self.tty or force

    def step(self, label: str) -> None:
        self.count = min(self.count + 1, self.total)
        if not self.enabled:
            return
        share = self.count / self.total
        if self.tty:
            filled = int(WIDTH * share)
            bar = "#" * filled + "." * (WIDTH - filled)
            self.out.write(f"\r[{bar}] {share:4.0%} {label[:40]:<40}")
        else:
            self.out.write(f"bench: {self.count}/{self.total} {label}\n")
        self.out.flush()

    def done(self) -> None:
        if self.enabled and self.tty:
            self.out.write("\r" + " " * (WIDTH + 48) + "\r")
            self.out.flush()
