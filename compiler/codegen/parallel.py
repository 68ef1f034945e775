"""Multi-threaded GEMM calls: rows of C split across POSIX threads (``num_threads`` > 1).

A GEMM of m rows becomes T calls on row blocks [r0, r0 + rows) whose starts are multiples of
the micro-tile height, so packed A panels stay aligned. The caller's thread runs the first
block; the others run on threads created for the call and joined before the kernel returns
(~20 us per thread here, so only GEMMs of at least PARALLEL_MIN_FLOPS are split).

    struct task { ptr c; ptr a; ptr b; ptr bias; ptr residual; }
    ptr <gemm>_task(ptr task)       // calls <gemm>(c, a, b, bias, residual) directly
"""

from __future__ import annotations

import dataclasses

from llvmlite import ir

from .gemm_plan import GemmPlan
from .kernel import PTR, Kernel
from .loops import i64

__all__ = ["gemm_call", "PARALLEL_MIN_FLOPS"]

PARALLEL_MIN_FLOPS = 4_000_000
I32 = ir.IntType(32)
I64 = ir.IntType(64)
TASK = ir.LiteralStructType([PTR] * 5)


def _thunk(module: ir.Module, gemm_fn: ir.Function) -> ir.Function:
    """The thread start routine for one GEMM function (a direct call: no indirect calls)."""
    name = f"{gemm_fn.name}_task"
    if name in module.globals:
        return module.globals[name]
    fn = ir.Function(module, ir.FunctionType(PTR, [PTR]), name)
    fn.linkage = "internal"
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    fields = [
        b.load(
            b.gep(
                fn.args[0],
                [ir.Constant(I32, 0), ir.Constant(I32, i)],
                source_etype=TASK,
            ),
            typ=PTR,
        )
        for i in range(5)
    ]
    b.call(gemm_fn, fields)
    b.ret(ir.Constant(PTR, None))
    return fn


def _extern(
    module: ir.Module, name: str, ret: ir.Type, args: list[ir.Type]
) -> ir.Function:
    if name in module.globals:
        return module.globals[name]
    return ir.Function(module, ir.FunctionType(ret, args), name)


def _blocks(plan: GemmPlan, threads: int) -> list[tuple[int, int]]:
    """(first row, rows) per thread; block starts are multiples of mr."""
    per = -(-plan.m // threads)
    per = -(-per // plan.mr) * plan.mr
    blocks, r0 = [], 0
    while r0 < plan.m:
        blocks.append((r0, min(per, plan.m - r0)))
        r0 += per
    return blocks


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
) -> None:
    """Call the GEMM ``make_fn(plan)`` on (c, a, b, bias, residual), split over threads."""
    flops = 2 * plan.m * plan.n * plan.k
    blocks = (
        _blocks(plan, threads) if threads > 1 and flops >= PARALLEL_MIN_FLOPS else []
    )
    if len(blocks) < 2:
        k.b.call(make_fn(plan), [c, a, b, bias, residual])
        return
    module, bld = k.fn.module, k.b
    # slots are addressed as integers + byte offsets: llvmlite keeps alloca pointers typed
    # and refuses to store a function pointer through them
    tasks = bld.ptrtoint(k.alloca(ir.ArrayType(TASK, len(blocks)), name="tasks"), I64)
    tids = bld.ptrtoint(k.alloca(ir.ArrayType(I64, len(blocks)), name="tids"), I64)
    thunks = []
    for i, (r0, rows) in enumerate(blocks):
        thunks.append(_thunk(module, make_fn(dataclasses.replace(plan, m=rows, mc=0))))
        args = [
            _rows(k, c, r0 * plan.n),
            _rows(k, a, r0 * plan.k),
            b,
            _rows(k, bias, r0) if bias_per_row else bias,
            _rows(k, residual, r0 * plan.n),
        ]
        for j, value in enumerate(args):
            bld.store(value, _at(bld, tasks, (i * 5 + j) * 8))
    create = _extern(module, "pthread_create", I32, [PTR, PTR, PTR, PTR])
    join = _extern(module, "pthread_join", I32, [ir.IntType(64), PTR])
    for i in range(1, len(blocks)):
        bld.call(
            create,
            [
                _at(bld, tids, i * 8),
                ir.Constant(PTR, None),
                thunks[i],
                _at(bld, tasks, i * 40),
            ],
        )
    bld.call(thunks[0], [_at(bld, tasks, 0)])
    for i in range(1, len(blocks)):
        bld.call(
            join, [bld.load(_at(bld, tids, i * 8), typ=I64), ir.Constant(PTR, None)]
        )


def _at(b: ir.IRBuilder, base: ir.Value, offset: int) -> ir.Value:
    return b.inttoptr(b.add(base, i64(offset)), PTR)


def _rows(k: Kernel, ptr: ir.Value, elements: int) -> ir.Value:
    if isinstance(ptr, ir.Constant) or elements == 0:
        return ptr  # null stays null
    return k.b.gep(ptr, [i64(elements)], inbounds=True, source_etype=ir.FloatType())
