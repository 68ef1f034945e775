"""torch.export.draft_export as evidence: when export fails on a guard (a constraint
violation, a data-dependent guard) and names no line, its report says where each guard
was added."""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import TYPE_CHECKING

from .frames import _frame

if TYPE_CHECKING:
    from .collect import Capture


_GUARD_FAILURES = ("ConstraintViolationError", "GuardOnDataDependentSymNode")

# torch's functions that check the dynamic shapes' constraints after tracing: any
# error raised inside them (even torch's own AssertionError) is about a dynamic Dim
GUARD_SOLVE = frozenset(
    {"produce_guards_and_solve_constraints", "_produce_guards_callback"}
)


def _guard_failure(error: dict) -> bool:
    """A constraint violation or a data-dependent guard: export's own error names no
    line, but draft_export reports where each guard was added."""
    return any(
        e["type"] in _GUARD_FAILURES
        or set(e.get("bases", [])) & set(_GUARD_FAILURES)
        or (e.get("fields") or {}).get("error_type") == "CONSTRAINT_VIOLATION"
        or any(f.get("func") in GUARD_SOLVE for f in e["frames"])
        for e in error["chain"]
    )


# draft_export re-traces and re-solves every guard: on a model with dynamic height
# and width it took 142 s where export itself took 5 (EfficientFormerV2). Its report
# only ranks root lines, so it gets a CPU budget of its own and is dropped past it.
DRAFT_BUDGET_S = 30.0


class _OverBudget(BaseException):
    """Raised by the CPU-time alarm (a BaseException: torch's `except Exception`
    handlers must not swallow it)."""


@contextlib.contextmanager
def _budget(seconds: float):
    """Stop the body after `seconds` of CPU time (main thread only; elsewhere no
    limit: signals reach only the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise _OverBudget

    old = signal.signal(signal.SIGPROF, stop)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def _draft(loaded, capture: Capture) -> list[dict]:
    """torch.export.draft_export's report: each guard it had to add (or data-dependent
    error), with the user frames that added it, innermost last."""
    import logging

    import torch

    quiet = logging.getLogger("torch.export._draft_export")
    level, quiet.level = quiet.level, logging.ERROR
    try:
        with capture.grad_mode(), _budget(DRAFT_BUDGET_S):
            ep = torch.export.draft_export(
                loaded.model,
                tuple(loaded.inputs),
                dynamic_shapes=loaded.dynamic_shapes,
                strict=False,
            )
        report = ep._report
    except (Exception, _OverBudget):  # noqa: BLE001 - extra evidence, not required
        return []
    finally:
        quiet.level = level
    table = getattr(report, "str_to_filename", None) or {}
    names = {**{v: k for k, v in table.items()}, **table}  # index -> file name
    out = []
    for failure in report.failures[:20]:
        data = failure.data if isinstance(failure.data, dict) else {}
        frames = [
            _frame(
                names.get(f.get("filename"), str(f.get("filename"))),
                f["line"],
                f["name"],
            )
            for f in data.get("user_stack") or data.get("stack") or []
            if isinstance(f, dict) and "line" in f
        ]
        out.append(
            {
                "type": getattr(
                    failure.failure_type, "name", str(failure.failure_type)
                ),
                "expr": str(data.get("expr", ""))[:200],
                "frames": frames,
            }
        )
    return out
