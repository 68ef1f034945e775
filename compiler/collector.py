"""Python's cyclic garbage collector paused while Cuvil compiles captured IR.

The passes, LLVM IR generation and the JIT allocate hundreds of thousands of small
objects that live until the compile ends (Cuvil IR, llvmlite's IR builder objects), so
the collector's automatic full collections keep walking a heap that only grows, torch's
own objects included: on ResNet-18 they were ~40% of LLVM IR generation (0.25 s of CPU;
docs/COMPILE_TIME.md). The capture (torch's trace) is not paused: its first call imports
torch._dynamo, and one collection over all of that at the end would cost more than it
saves. ``paused()`` turns the collector off and, when the
outermost compile ends, on again (if it was on) and collects the youngest generation
once: the compile's own garbage cycles are freed then, in one walk over the objects
the compile made, instead of many over the whole heap. Reference counting frees
everything else as usual meanwhile. Nested and concurrent compiles share one pause.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

__all__ = ["paused"]

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextlib.contextmanager
def paused() -> Iterator[None]:
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            resume = _depth == 0 and _was_enabled
            if resume:
                gc.enable()
        if resume:
            gc.collect(0)
