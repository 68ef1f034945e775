"""Which faults are injected: ``inject`` blocks, and the CompileHooks that apply them.

The active faults live in a ContextVar of this package, so a block covers its own thread
(and context) only. The compiler never reads it: the toolkit's code that compiles (diff,
bisect, reduce, the repro script) passes ``hooks=faults.hooks()`` explicitly, and so must
any other caller of ``cuvil.compile`` that wants the faults.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterable, Iterator
from contextvars import ContextVar

from cuvil.hooks import CompileHooks

from . import stages
from .inject_pass import pipeline_item
from .spec import Fault, parse

__all__ = ["inject", "active", "hooks"]

# the faults of the enclosing `inject` blocks, outermost first
_ACTIVE: ContextVar[tuple[Fault, ...]] = ContextVar("cuvil_debug_faults", default=())


def active() -> tuple[Fault, ...]:
    """The faults injected now in this thread/context (innermost `inject` last)."""
    return _ACTIVE.get()


@contextlib.contextmanager
def inject(*faults: Fault | str) -> Iterator[tuple[Fault, ...]]:
    """Make `faults` (Faults or spec strings) active inside the block (see `hooks`).

    Nestable; the active faults are restored on exit, also when the block raises. Objects
    compiled inside stay wrong: the faults are in their code.
    """
    added = tuple(f if isinstance(f, Fault) else parse(f) for f in faults)
    token = _ACTIVE.set(_ACTIVE.get() + added)
    try:
        yield added
    finally:
        _ACTIVE.reset(token)


def hooks(faults: Iterable[Fault | str] | None = None) -> CompileHooks | None:
    """The ``cuvil.compile(..., hooks=)`` that inject `faults` (default: the active ones):
    lowering faults on ``after_node``, pass faults as ``inject-fault{...}`` right after
    ``fold-constants`` in the default pipelines, kernel faults on ``after_kernel``.
    None when there are no faults (a compile without hooks)."""
    chosen = active() if faults is None else tuple(faults)
    chosen = tuple(f if isinstance(f, Fault) else parse(f) for f in chosen)
    if not chosen:
        return None
    lowering = tuple(f for f in chosen if f.stage == "lowering")
    kernel = tuple(f for f in chosen if f.stage == "kernel")
    return CompileHooks(
        after_node=functools.partial(stages.after_node, lowering) if lowering else None,
        passes=tuple(pipeline_item(f) for f in chosen if f.stage == "pass"),
        after_kernel=functools.partial(stages.after_kernel, kernel) if kernel else None,
    )
