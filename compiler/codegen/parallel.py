"""Work split over the persistent thread pool (pool.py) when ``num_threads`` > 1.

``parallel_for(k, fn, args, items, threads, flops)`` calls ``fn(args..., first, count)``
over items [0, items): directly when one thread is asked for or the work is small (under
PARALLEL_MIN_FLOPS), else through the pool, which hands chunks of items to the caller and
its workers. The arguments travel in a stack array of pointers read by a thunk:

    void <fn>_task(ptr ctx, i64 first, i64 count)   // fn(ctx[0], ..., first, count)

``gemm_call`` splits a GEMM's rows into blocks whose starts are multiples of the micro-tile
height (packed A panels stay aligned): one item per block, a helper
``<gemm>_rows(c, a, b, bias, residual, first, count)`` calls the GEMM of each block.
"""

from __future__ import annotations

import dataclasses

from llvmlite import ir

from .gemm_plan import GemmPlan
from .kernel import PTR, Kernel
from .pool import RUN_TYPE, indirect_call, pool_entry

__all__ = [
    "block_loop",
    "gemm_call",
    "parallel_for",
    "PARALLEL_MIN_FLOPS",
    "split_rows",
]

PARALLEL_MIN_FLOPS = 1_000_000  # ~5 us of work: more than a job costs
I64 = ir.IntType(64)
VOID = ir.VoidType()
BLOCKS_PER_THREAD = 4


def _c(v: int) -> ir.Constant:
    return ir.Constant(I64, v)


def parallel_for(
    k: Kernel, fn: ir.Function, args: list, items: int, threads: int, flops: int
) -> None:
    """``fn(*args, first, count)`` over [0, items), split when it pays."""
    b = k.b
    if threads <= 1 or items < 2 or flops < PARALLEL_MIN_FLOPS:
        b.call(fn, [*args, _c(0), _c(items)])
        return
    ctx = k.alloca(ir.ArrayType(PTR, max(len(args), 1)), name="ctx")
    for i, value in enumerate(args):
        b.store(
            value,
            b.gep(
                ctx, [ir.Constant(ir.IntType(32), 0), ir.Constant(ir.IntType(32), i)]
            ),
        )
    run = b.load(pool_entry(k.fn.module), typ=PTR)
    indirect_call(
        b,
        run,
        RUN_TYPE,
        [_thunk(k.fn.module, fn, len(args)), ctx, _c(items), _c(threads)],
    )


def _thunk(module: ir.Module, fn: ir.Function, n_args: int) -> ir.Function:
    name = f"{fn.name}_task"
    if name in module.globals:
        return module.globals[name]
    thunk = ir.Function(module, ir.FunctionType(VOID, [PTR, I64, I64]), name)
    thunk.linkage = "internal"
    thunk.attributes.add("nounwind")
    b = ir.IRBuilder(thunk.append_basic_block("entry"))
    ctx, first, count = thunk.args
    args = [
        b.load(b.gep(ctx, [ir.Constant(I64, i)], source_etype=PTR), typ=PTR)
        for i in range(n_args)
    ]
    b.call(fn, [*args, first, count])
    b.ret_void()
    return thunk


def split_rows(plan: GemmPlan, threads: int) -> int:
    """Rows per block (a multiple of mr) so that each thread gets a few blocks."""
    per = -(-plan.m // (threads * BLOCKS_PER_THREAD))
    per = -(-per // plan.mr) * plan.mr
    return max(per, plan.mr)


def gemm_call(
    k: Kernel,
    make_fn,
    plan: GemmPlan,
    c,
    a,
    b,
    bias,
    residual,
    threads: int,
    bias_per_row: bool,
    b_packed: bool = False,
) -> None:
    """Call the GEMM ``make_fn(plan)`` on (c, a, b, bias, residual), split over threads:
    by row blocks, or for a one-row product with packed B (a GEMV: a classifier head)
    by blocks of column panels."""
    flops = 2 * plan.m * plan.n * plan.k
    if plan.m == 1 and b_packed and threads > 1 and flops >= PARALLEL_MIN_FLOPS:
        panels = -(-plan.n // plan.nr)
        per = -(-panels // (threads * BLOCKS_PER_THREAD))
        if per < panels:
            cols = _gemv_cols(k.fn.module, make_fn, plan, per)
            blocks = -(-panels // per)
            parallel_for(k, cols, [c, a, b, bias, residual], blocks, threads, flops)
            return
    per = split_rows(plan, threads)
    if threads <= 1 or flops < PARALLEL_MIN_FLOPS or per >= plan.m:
        k.b.call(make_fn(plan), [c, a, b, bias, residual])
        return
    rows_fn = _gemm_rows(k.fn.module, make_fn, plan, per, bias_per_row)
    blocks = -(-plan.m // per)
    parallel_for(k, rows_fn, [c, a, b, bias, residual], blocks, threads, flops)


def _gemm_rows(
    module: ir.Module, make_fn, plan: GemmPlan, per: int, bias_per_row: bool
):
    """``<gemm>_rows(c, a, b, bias, residual, first, count)``: the GEMM of row blocks
    [first, first + count), `per` rows each (the last one shorter)."""
    full = make_fn(dataclasses.replace(plan, m=per, mc=0))
    blocks = -(-plan.m // per)
    last_rows = plan.m - (blocks - 1) * per
    last = (
        full
        if last_rows == per
        else make_fn(dataclasses.replace(plan, m=last_rows, mc=0))
    )
    name = f"{full.name}_rows{plan.m}"

    def block_args(b: ir.IRBuilder, i: ir.Value, c, a, bm, bias, res) -> list:
        r0 = b.mul(i, _c(per))
        return [
            _rows(b, c, r0, plan.n),
            _rows(b, a, r0, plan.k),
            bm,
            _rows(b, bias, r0, 1) if bias_per_row else bias,
            _rows(b, res, r0, plan.n),
        ]

    return block_loop(module, name, blocks, full, last, block_args)


def block_loop(
    module: ir.Module, name: str, blocks: int, full, last, block_args, pointers: int = 5
):
    """``name(c, a, b, bias, residual, first, count)``: calls `full` on blocks [first,
    first + count) with `block_args(builder, i, c, a, b, bias, residual)`, and `last`
    on block ``blocks - 1`` (shorter than the others, or `full` itself). `pointers`:
    how many pointer arguments come before (first, count) (the int8 GEMM has 6)."""
    if name in module.globals:
        return module.globals[name]
    fn = ir.Function(module, ir.FunctionType(VOID, [PTR] * pointers + [I64, I64]), name)
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    *pointers, first, count = fn.args
    pre, head = b.block, fn.append_basic_block("blocks")
    body, done = fn.append_basic_block("block"), fn.append_basic_block("done")
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(I64, "blk")
    i.add_incoming(first, pre)
    b.cbranch(b.icmp_signed("<", i, b.add(first, count)), body, done)
    b.position_at_end(body)
    args = block_args(b, i, *pointers)
    with b.if_else(b.icmp_signed("==", i, _c(blocks - 1))) as (then, other):
        with then:
            b.call(last, args)
        with other:
            b.call(full, args)
    i.add_incoming(b.add(i, _c(1)), b.block)
    b.branch(head)
    b.position_at_end(done)
    b.ret_void()
    return fn


def _rows(b: ir.IRBuilder, ptr: ir.Value, r0: ir.Value, width: int) -> ir.Value:
    """`ptr` advanced by r0 rows of `width` floats (no `inbounds`: unused pointers such
    as a null bias may pass through)."""
    return b.gep(ptr, [b.mul(r0, _c(width))], source_etype=ir.FloatType())


def _gemv_cols(module: ir.Module, make_fn, plan: GemmPlan, per: int):
    """``<gemm>_cols(c, a, b, bias, residual, first, count)``: one-row GEMMs over blocks
    of `per` packed column panels (C, bias and residual are one row: contiguous)."""
    width = per * plan.nr
    blocks = -(-plan.n // width)
    last_n = plan.n - (blocks - 1) * width
    full = make_fn(dataclasses.replace(plan, n=width))
    last = full if last_n == width else make_fn(dataclasses.replace(plan, n=last_n))
    name = f"{full.name}_cols{plan.n}"

    def block_args(b: ir.IRBuilder, i: ir.Value, c, a, bm, bias, res) -> list:
        return [
            _rows(b, c, i, width),
            a,
            _rows(b, bm, i, width * plan.k),  # `per` panels of [k, nr]
            _rows(b, bias, i, width),
            _rows(b, res, i, width),
        ]

    return block_loop(module, name, blocks, full, last, block_args)
