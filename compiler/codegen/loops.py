"""Loop helpers over llvmlite's IRBuilder: counted loops and loop nests with i64 indices."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager

from llvmlite import ir

__all__ = ["I64", "i64", "for_range", "loop_nest", "linear_offset"]

I64 = ir.IntType(64)


def i64(v: int) -> ir.Constant:
    return ir.Constant(I64, v)


@contextmanager
def for_range(
    b: ir.IRBuilder, stop, start=0, step: int = 1, name: str = "i"
) -> Iterator[ir.Value]:
    """``for (i = start; i < stop; i += step)``; the body is emitted inside the ``with``."""
    start = i64(start) if isinstance(start, int) else start
    stop = i64(stop) if isinstance(stop, int) else stop
    pre = b.block
    head = b.append_basic_block(f"{name}.head")
    body = b.append_basic_block(f"{name}.body")
    done = b.append_basic_block(f"{name}.done")
    b.branch(head)
    b.position_at_end(head)
    idx = b.phi(I64, name)
    idx.add_incoming(start, pre)
    b.cbranch(b.icmp_signed("<", idx, stop), body, done)
    b.position_at_end(body)
    yield idx
    nxt = b.add(idx, i64(step), name=f"{name}.next", flags=("nsw",))
    idx.add_incoming(nxt, b.block)
    b.branch(head)
    b.position_at_end(done)


@contextmanager
def loop_nest(
    b: ir.IRBuilder, dims: Sequence[int], name: str = "d"
) -> Iterator[list[ir.Value]]:
    """Nested loops over `dims` (outermost first); yields the list of indices."""
    with ExitStack() as stack:
        yield [
            stack.enter_context(for_range(b, n, name=f"{name}{k}"))
            for k, n in enumerate(dims)
        ]


def linear_offset(
    b: ir.IRBuilder, idx: Sequence[ir.Value], strides: Sequence[int]
) -> ir.Value:
    """sum(idx[k] * strides[k]) over the non-zero strides, as i64."""
    terms = [
        i if s == 1 else b.mul(i, i64(s), flags=("nsw",))
        for i, s in zip(idx, strides)
        if s
    ]
    if not terms:
        return i64(0)
    off = terms[0]
    for t in terms[1:]:
        off = b.add(off, t, flags=("nsw",))
    return off
