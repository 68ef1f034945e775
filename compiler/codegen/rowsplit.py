"""Loop-nest kernels split over the thread pool by their outermost rows.

A GEMM or a convolution is emitted as a micro-kernel function with a work-item range
from the start (parallel.py). A loop-nest kernel (pooling) writes its loops straight
into the kernel function; to split it, ``split_rows`` has its emitter write the same
loops once more into a task function ``<kernel>_rows(pointers..., first, count)`` whose
outermost loop runs over rows [first, first + count) only, and the kernel function
hands the rows to the pool (``parallel_for``). Rows are the first output dimension, in
memory order, with more than one index (a batch of 1 splits its image rows).

The task function carries no line table of its own (as the GEMM and convolution
micro-kernels): a debugger stops at the kernel function, which keeps the op's line.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager

from llvmlite import ir

from .kernel import Kernel
from .loops import I64, for_range, i64
from .parallel import PARALLEL_MIN_FLOPS, parallel_for

__all__ = ["memory_order", "split_rows", "output_nest"]


def memory_order(dims: Sequence[int], strides: Sequence[int]) -> list[int]:
    """The logical dims, outermost (largest stride) first; the leading dims of extent 1
    last, so the outermost loop is the first that has more than one index."""
    order = sorted(range(len(dims)), key=lambda d: -strides[d])
    one = [d for d in order if _one(dims[d])]
    return [d for d in order if d not in one] + one


def _one(dim) -> bool:
    return isinstance(dim, int) and dim == 1  # (an empty dim keeps its loop: no pass)


@contextmanager
def split_rows(
    k: Kernel, rows: int, threads: int, flops: int
) -> Iterator[tuple[Kernel, ir.Value, ir.Value]]:
    """Yields (kernel to emit into, first row, end row). Split: a task function over
    [first, first + count) run by the pool; else `k` itself over [0, rows)."""
    if threads <= 1 or rows < 2 or flops < PARALLEL_MIN_FLOPS:
        yield k, i64(0), i64(rows)
        return
    n_ptr = len(k.fn.args)
    task = Kernel(
        k.fn.module,
        f"{k.fn.name}_rows",
        k.op,
        n_scratch=k.n_scratch,
        n_extra=n_ptr - k.n_out - k.n_in - k.n_scratch,
        inplace=k.inplace,
        tail=(I64, I64),
    )
    first, count = task.fn.args[n_ptr:]
    yield task, first, task.b.add(first, count)
    task.finish()
    parallel_for(k, task.fn, list(k.fn.args), rows, threads, flops)


@contextmanager
def output_nest(
    k: Kernel,
    dims: Sequence[int],
    strides: Sequence[int],
    span: tuple[ir.Value, ir.Value] | None = None,
) -> Iterator[list[ir.Value]]:
    """Loops over the output's logical dims in memory order (``memory_order``), the
    outermost over [span) when given; yields the indices in logical order."""
    order = memory_order(dims, strides)
    idx: list[ir.Value] = [i64(0)] * len(dims)  # dims of extent 1 stay at 0
    with ExitStack() as stack:
        for j, d in enumerate(o for o in order if not _one(dims[o])):
            start, stop = span if j == 0 and span is not None else (0, dims[d])
            idx[d] = stack.enter_context(for_range(k.b, stop, start, name=f"o{j}"))
        yield idx
