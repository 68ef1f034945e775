"""Pass instrumentation: the one callback called after every pass, and tools built on it.

    callback(pass_, before_text, module_after, info)

``before_text`` is the printed IR before the pass, ``module_after`` the module itself (print
it only if needed), ``info`` a PassInfo. Print-after-all, print-after-change (a unified diff
of the IR text), the timing report and snapshots are such callbacks; ``combine`` chains them.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ..ir.core import Module
from ..ir.printer import print_module
from .base import Action, ModulePass

__all__ = [
    "PassInfo",
    "Callback",
    "combine",
    "PrintAfterAll",
    "PrintAfterChange",
    "TimingReport",
    "Snapshots",
    "ir_diff",
]


@dataclass(frozen=True)
class PassInfo:
    """What one pass did: changed?, wall time, and the actions it asked for (global index)."""

    name: str
    changed: bool
    seconds: float
    actions: int
    first_action: int | None
    last_action: int | None
    skipped: int = 0  # actions refused by the bisect limit

    @staticmethod
    def of(name: str, changed: bool, seconds: float, actions: list[Action]) -> PassInfo:
        first = actions[0].index if actions else None
        last = actions[-1].index if actions else None
        skipped = sum(not a.applied for a in actions)
        return PassInfo(name, changed, seconds, len(actions), first, last, skipped)


Callback = Callable[[ModulePass, str, Module, PassInfo], None]


def combine(*callbacks: Callback | None) -> Callback | None:
    """One callback calling each given one in order (None when there is none)."""
    chain = [c for c in callbacks if c is not None]
    if not chain:
        return None
    if len(chain) == 1:
        return chain[0]

    def call(pass_, before, after, info) -> None:
        for c in chain:
            c(pass_, before, after, info)

    return call


def ir_diff(before: str, after: str, name: str) -> str:
    """Unified diff of two IR texts, labelled with the pass name."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        f"before {name}",
        f"after {name}",
    )
    return "".join(lines)


@dataclass
class PrintAfterAll:
    """Print the IR after every pass (``--print-after-all``)."""

    stream: TextIO = sys.stderr

    def __call__(self, pass_, before, after, info) -> None:
        self.stream.write(
            f"// ----- IR after {pass_.spec()} -----\n{print_module(after)}"
        )


@dataclass
class PrintAfterChange:
    """Print a unified diff of the IR after each pass that changed it."""

    stream: TextIO = sys.stderr

    def __call__(self, pass_, before, after, info) -> None:
        if info.changed:
            head = f"// ----- {pass_.spec()}: {info.actions} action(s) -----\n"
            self.stream.write(head + ir_diff(before, print_module(after), pass_.spec()))


@dataclass
class TimingReport:
    """Collect PassInfos; ``table()`` formats the timing report."""

    infos: list[PassInfo] | None = None

    def __call__(self, pass_, before, after, info) -> None:
        self.infos = (self.infos or []) + [info]

    def table(self) -> str:
        return format_table(self.infos or [])


def format_table(infos: list[PassInfo]) -> str:
    """The pass table: name, changed, actions (global range), milliseconds."""
    rows = [("#", "pass", "changed", "actions", "range", "ms")]
    for i, p in enumerate(infos, 1):
        span = f"{p.first_action}..{p.last_action}" if p.actions else "-"
        if p.skipped:
            span += f" ({p.skipped} skipped)"
        rows.append(
            (
                str(i),
                p.name,
                "yes" if p.changed else "no",
                str(p.actions),
                span,
                f"{p.seconds * 1e3:.2f}",
            )
        )
    total = sum(p.seconds for p in infos) * 1e3
    rows.append(
        ("", "total", "", str(sum(p.actions for p in infos)), "", f"{total:.2f}")
    )
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows
    )


@dataclass
class Snapshots:
    """Write the IR after each pass to ``DIR/0001-fold-bn.cuvilir`` (and ``0000-input``).

    Each file is written beside itself and renamed into place (atomic; a symbolic link
    at the name is replaced, never written through). The tools refuse a DIR holding
    snapshots before the run, unless --force (cuvil.args)."""

    directory: Path
    count: int = 0

    def __call__(self, pass_, before, after, info) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        if self.count == 0:
            _replace(self.directory / "0000-input.cuvilir", before)
        self.count += 1
        path = self.directory / f"{self.count:04d}-{pass_.name}.cuvilir"
        _replace(path, print_module(after))


def _replace(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    if os.path.lexists(tmp):  # a leftover (or a planted link) is not written through
        os.unlink(tmp)
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
