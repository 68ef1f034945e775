"""Loop helpers over llvmlite's IRBuilder: counted loops and loop nests with i64 indices."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager

from llvmlite import ir

__all__ = ["I64", "i64", "for_range", "loop_nest", "linear_offset", "no_unroll"]

I64 = ir.IntType(64)


def i64(v: int) -> ir.Constant:
    return ir.Constant(I64, v)


def no_unroll(module: ir.Module) -> ir.MDValue:
    """The loop ID ``!{self, !{"llvm.loop.unroll.disable"}}`` (one per module): LLVM
    neither unrolls nor fully unrolls a loop whose latch carries it (vectorizing it
    stays allowed)."""
    found = module.__dict__.get("_cuvil_no_unroll")
    if found is None:
        hint = module.add_metadata(
            [ir.MetaDataString(module, "llvm.loop.unroll.disable")]
        )
        found = module.add_metadata([hint, hint])  # operand 0 becomes the node itself
        found.operands = (found, hint)
        module.__dict__["_cuvil_no_unroll"] = found
    return found


@contextmanager
def for_range(
    b: ir.IRBuilder,
    stop,
    start=0,
    step: int = 1,
    name: str = "i",
    unroll: bool = True,
) -> Iterator[ir.Value]:
    """``for (i = start; i < stop; i += step)``; the body is emitted inside the ``with``.
    ``unroll=False``: LLVM leaves the loop rolled (`no_unroll`)."""
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
    latch = b.branch(head)
    if not unroll:
        latch.set_metadata("llvm.loop", no_unroll(b.module))
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
