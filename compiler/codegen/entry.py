"""The entry function that calls the kernels in order, and its step and profile variants.

    void cuvil_main(ptr inputs[], ptr outputs[], ptr params[], ptr arena)

Each call passes its buffers' pointers: loaded from the inputs/outputs/params arrays, an
offset into the arena, or an inline constant's global. ``profile`` accumulates the cycles
of call i in ``i64 cuvil_profile[i]``; ``emit_steps`` adds ``cuvil_step_<i>``, call i
alone with the entry's signature (after the entry, whose text stays unchanged). Each
call is located at the op it computes, so a backtrace in a kernel shows
``cuvil_main (...) at model.py:N`` (through an inlined ``cuvil_call_<i>``, debuginfo.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from llvmlite import ir

from ..ir.core import Function, Operation, Value
from ..ir.location import AnyLoc
from .buffers import Buffers, Slot
from .debuginfo import DebugInfo, debug_attributes
from .kernel import PTR
from .loops import i64

__all__ = [
    "ENTRY",
    "STEP_PREFIX",
    "SEGMENT_PREFIX",
    "SEGMENT_CALLS",
    "PROFILE_SYMBOL",
    "Call",
    "StepInfo",
    "emit_entry",
    "emit_steps",
    "describe_steps",
]

ENTRY = "cuvil_main"
SEGMENT_PREFIX = "cuvil_seg_"  # cuvil_seg_<j>: calls of a long release entry, in order
SEGMENT_CALLS = 16  # calls per segment (emit_entry)
STEP_PREFIX = "cuvil_step_"  # cuvil_step_<i>: call i of the entry alone (steps=True)
PROFILE_SYMBOL = "cuvil_profile"
ENTRY_ARGS = ("inputs", "outputs", "params", "arena")  # its variables in debug builds

#: one call of the entry: the kernel and what it is passed (values or fixed slots)
Call = tuple[ir.Function, list[Value | Slot]]


@dataclass
class StepInfo:
    """Call `index` of the entry, emitted alone as `symbol` (``generate(steps=True)``).

    `op` is the IR op the call computes; None for an output copy (an output that is an
    input, param, constant or a second alias), whose `operands` are ``[v]``, `results`
    empty and `output` the index of the output it writes.
    """

    index: int
    symbol: str
    op: Operation | None
    operands: list[Value]
    results: list[Value]
    output: int | None = None


def emit_entry(
    llmod: ir.Module,
    calls: list[Call],
    buffers: Buffers,
    profile: bool = False,
    debug: DebugInfo | None = None,
    locs: Sequence[AnyLoc | None] = (),
    segment: int = 0,
) -> None:
    """The entry; with `debug`, call i carries ``locs[i]``, the location of the op it
    computes (its arguments are variables of a debug build, debuginfo.py).

    `segment` (0: off): with more calls than that, the calls are made by internal,
    never inlined functions ``cuvil_seg_<j>`` (the entry's signature, `segment` calls
    each) that the entry calls in order. A release build inlines every kernel into
    its caller, and LLVM's time on one function grows faster than its size: bounded
    callers keep LLVM's cost per kernel flat (docs/COMPILE_TIME.md)."""
    ftype = ir.FunctionType(ir.VoidType(), [PTR] * 4)
    fn = ir.Function(llmod, ftype, ENTRY)
    counters = _profile_counters(llmod, len(calls)) if profile else None
    if not segment or len(calls) <= segment:
        _emit_calls(fn, calls, range(len(calls)), buffers, counters, debug, locs)
        return
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    _Sites(debug, b, fn, named=True)
    for j, start in enumerate(range(0, len(calls), segment)):
        part = ir.Function(llmod, ftype, f"{SEGMENT_PREFIX}{j}")
        part.linkage = "internal"
        part.attributes.add("noinline")
        order = range(start, min(start + segment, len(calls)))
        _emit_calls(part, calls, order, buffers, counters, debug, locs, named=False)
        _call(b, part, list(fn.args))
    b.ret_void()


def _emit_calls(
    fn: ir.Function,
    calls: list[Call],
    order: range,
    buffers: Buffers,
    counters: ir.GlobalVariable | None,
    debug: DebugInfo | None,
    locs: Sequence[AnyLoc | None],
    named: bool = True,
) -> None:
    """`fn`'s body: calls `order` of `calls`, each passed its buffers' pointers."""
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    sites = _Sites(debug, b, fn, named=named)
    arrays = {"input": fn.args[0], "output": fn.args[1], "param": fn.args[2]}
    for i in order:
        callee, values = calls[i]
        where = sites.call(i, locs[i] if i < len(locs) else None)
        args = [_pointer(b, arrays, fn.args[3], buffers.slot(v)) for v in values]
        if counters is None:
            _call(b, callee, args, where)
        else:
            _timed_call(b, callee, args, counters, i, where)
    b.ret_void()


def emit_steps(
    llmod: ir.Module,
    fn: Function,
    calls: list[Call],
    buffers: Buffers,
    debug: DebugInfo | None = None,
    locs: Sequence[AnyLoc | None] = (),
) -> list[StepInfo]:
    """``cuvil_step_<i>``: the entry's call i alone, with the entry's signature and
    the same argument pointers (emitted after the entry: its text is unchanged)."""
    for i, (callee, values) in enumerate(calls):
        name = f"{STEP_PREFIX}{i}"
        step = ir.Function(llmod, ir.FunctionType(ir.VoidType(), [PTR] * 4), name)
        b = ir.IRBuilder(step.append_basic_block("entry"))
        where = _Sites(debug, b, step).call(i, locs[i] if i < len(locs) else None)
        arrays = {"input": step.args[0], "output": step.args[1], "param": step.args[2]}
        args = [_pointer(b, arrays, step.args[3], buffers.slot(v)) for v in values]
        _call(b, callee, args, where)
        b.ret_void()
    return describe_steps(fn, [values for _, values in calls], buffers)


def describe_steps(
    fn: Function, calls: Sequence[Sequence], buffers: Buffers
) -> list[StepInfo]:
    """The `StepInfo` of each entry call (its argument values, in call order) without
    emitting anything: ``emit_steps``'s answer, also for a cached build (ircache.py)."""
    made_by = {id(r): op for op in fn.ops for r in op.results}
    steps = []
    for i, values in enumerate(calls):
        name = f"{STEP_PREFIX}{i}"
        first = values[0] if values else None
        op = made_by.get(id(first)) if isinstance(first, Value) else None
        if op is not None:
            steps.append(StepInfo(i, name, op, list(op.operands), list(op.results)))
            continue
        vals = [v for v in values[1:] if isinstance(v, Value)]
        out = buffers.slots.get(id(first)) if isinstance(first, Value) else None
        index = out.index if out is not None and out.kind == "output" else None
        steps.append(StepInfo(i, name, None, vals, [], index))
    return steps


class _Sites:
    """The debug info of a function that calls kernels (the entry, a step): its
    subprogram in GENERATED, its arguments as variables (`named`, debug builds), and
    each call's location (debuginfo.DebugInfo.call_site)."""

    def __init__(self, debug: DebugInfo | None, b, fn: ir.Function, named=False):
        self.debug, self.scope = debug, None
        if debug is None:
            return
        if debug.variables:
            debug_attributes(fn)  # keeps cuvil_main in a backtrace at O3
        args = [
            (n, debug.pointer_type(None, 1 if n == "arena" else 2)) for n in ENTRY_ARGS
        ]
        self.scope = debug.begin_generated(b, fn, 1, args if named else ())

    def call(self, index: int, loc: AnyLoc | None) -> ir.DIValue | None:
        """The location of call `index`, which computes the op at `loc`."""
        if self.debug is None:
            return None
        return self.debug.call_site(self.scope, loc, index)


def _call(b: ir.IRBuilder, callee, args, where=None) -> None:
    saved = b.debug_metadata
    b.debug_metadata = where or saved
    b.call(callee, args)
    b.debug_metadata = saved


def _profile_counters(llmod: ir.Module, n_calls: int) -> ir.GlobalVariable:
    """``i64 cuvil_profile[n_calls]``: cycles spent in each kernel, accumulated."""
    arr_t = ir.ArrayType(ir.IntType(64), max(n_calls, 1))
    g = ir.GlobalVariable(llmod, arr_t, name=PROFILE_SYMBOL)
    g.initializer = ir.Constant(arr_t, None)
    return g


def _timed_call(b: ir.IRBuilder, callee, args, counters, i: int, where) -> None:
    clock = b.module.declare_intrinsic(
        "llvm.readcyclecounter", (), ir.FunctionType(ir.IntType(64), [])
    )
    t0 = b.call(clock, [])
    _call(b, callee, args, where)
    spent = b.sub(b.call(clock, []), t0)
    slot = b.gep(counters, [i64(0), i64(i)], inbounds=True)
    b.store(b.add(b.load(slot), spent), slot)


def _pointer(b: ir.IRBuilder, arrays, arena, slot: Slot) -> ir.Value:
    if slot.kind == "arena":
        return b.gep(
            arena, [i64(slot.index)], inbounds=True, source_etype=ir.IntType(8)
        )
    if slot.kind == "const":
        return b.module.get_global(slot.index)
    addr = b.gep(arrays[slot.kind], [i64(slot.index)], inbounds=True, source_etype=PTR)
    return b.load(addr, typ=PTR)
