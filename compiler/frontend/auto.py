"""``frontend="auto"`` (the default): torch.export first, torch.fx when export fails.

torch.export checks more (it traces through Python control flow with fake tensors and
refuses what it cannot prove), and its ATen graph is what the rules see in both
frontends' decompositions; torch.fx tracing accepts models that export refuses (some
Python-side state, custom leaf modules). ``Captured`` records which frontend produced
the IR and why the other one was not used, for ``CompiledModule.frontend`` /
``frontend_notes``.

When both fail, the more informative error is raised (one naming an op, a node or a
source location beats a capture failure; on a tie, fx's, which was the default before
"auto"), unchanged but for one line in its hint naming the other attempt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch

from ..errors import CuvilError, UnsupportedOpError
from ..ir.core import Module

__all__ = ["Captured", "lower_auto", "first_line"]


@dataclass
class Captured:
    """The IR of a capture, the frontend that produced it and notes on the others."""

    module: Module
    frontend: str
    notes: list[str] = field(default_factory=list)


def first_line(e: BaseException) -> str:
    text = e.message if isinstance(e, CuvilError) else str(e)
    line = text.splitlines()[0] if text else ""
    return f"{type(e).__name__}: {line}"


def lower_auto(
    model: torch.nn.Module,
    inputs: Sequence[torch.Tensor],
    capture: Callable[[str], Module],
) -> Captured:
    """`capture(frontend)` lowers `model` with one frontend; export is tried first."""
    try:
        return Captured(capture("export"), "export")
    except CuvilError as e:
        export_error = e
    note = f"torch.export failed, used torch.fx: {first_line(export_error)}"
    try:
        return Captured(capture("fx"), "fx", [note])
    except CuvilError as e:
        fx_error = e
    chosen, other, other_name = fx_error, export_error, "torch.export"
    if _informative(export_error) > _informative(fx_error):
        chosen, other, other_name = export_error, fx_error, "torch.fx"
    line = f"(frontend 'auto': {other_name} failed too: {first_line(other)})"
    chosen.hint = f"{chosen.hint}\n  {line}" if chosen.hint else line
    chosen.frontend_notes = [line]
    raise chosen


def _informative(e: CuvilError) -> int:
    """2: names an unsupported op; 1: has a source location; 0: a capture failure."""
    if isinstance(e, UnsupportedOpError):
        return 2
    return 1 if e.where else 0
