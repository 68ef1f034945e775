"""`cuvil-debug profile MODEL`: time per FX node from the kernels' cycle counters, and
``--trace FILE``, one call as a Chrome / Perfetto trace (docs/PROFILING.md).

The counters are the compiler's (``options={"profile": True}``: ``cuvil_main`` adds the
cycles of each kernel call to ``cuvil_profile[i]``, ``CompiledModule.profile()``). They
count ``llvm.readcyclecounter`` ticks (the TSC on x86); their rate is measured here
against ``time.perf_counter_ns`` with a JIT'd function reading the same counter.
A trace lays each kernel's span after the previous one's from the call's start: the
counters hold durations, not timestamps (the gaps between kernels are not seen).
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import json
import os
import threading
import time

import llvmlite.binding as llvm

import cuvil
from cuvil.args import EXIT_OK, CompileArgs, OutputArgs
from cuvil.argtypes import count, positive_int
from cuvil.codegen.target import init_llvm, target_machine
from cuvil.errors import CuvilError
from cuvil.userpaths import check_file, write_file

from .args import ModelArgs

__all__ = ["add_parser", "run_profile", "cycles_per_second", "trace_events"]

MODEL = ModelArgs()
COMPILE = CompileArgs(default_level="3", native=True)
OUTPUT = OutputArgs("write the table to FILE instead of stdout")
_CLOCK_IR = """
declare i64 @llvm.readcyclecounter()
define i64 @cuvil_cycles() {
  %c = call i64 @llvm.readcyclecounter()
  ret i64 %c
}
"""


def add_parser(commands) -> None:
    p = commands.add_parser(
        "profile",
        help="time per FX node (kernel cycle counters); --trace: Perfetto JSON",
        description="Compile a model with per-kernel cycle counters, call it and "
        "print the time of each kernel (its FX nodes, op) slowest first, with its "
        "share of the total. --trace FILE writes one call as a Chrome/Perfetto trace.",
    )
    MODEL.add_to(p)
    COMPILE.add_to(p)
    p.add_argument(
        "--warmup",
        type=count,
        default=5,
        metavar="N",
        help="untimed calls first (default 5)",
    )
    p.add_argument(
        "--calls",
        type=positive_int,
        default=50,
        metavar="N",
        help="calls whose counters are summed (default 50)",
    )
    p.add_argument(
        "--trace",
        metavar="FILE",
        help="write one call as Trace Event Format JSON (chrome://tracing, "
        "ui.perfetto.dev)",
    )
    OUTPUT.add_to(p)
    p.set_defaults(run=run_profile)


@functools.cache
def _cycle_reader():
    init_llvm()
    mod = llvm.parse_assembly(_CLOCK_IR)
    engine = llvm.create_mcjit_compiler(mod, target_machine(0))
    engine.finalize_object()
    fn = ctypes.CFUNCTYPE(ctypes.c_uint64)(engine.get_function_address("cuvil_cycles"))
    return engine, fn


@functools.cache
def cycles_per_second(span_s: float = 0.05) -> float:
    """Ticks of the kernels' cycle counter per second (measured once per process)."""
    _, read = _cycle_reader()
    t0, c0 = time.perf_counter_ns(), read()
    while time.perf_counter_ns() - t0 < span_s * 1e9:
        pass
    t1, c1 = time.perf_counter_ns(), read()
    return (c1 - c0) * 1e9 / (t1 - t0)


def run_profile(args: argparse.Namespace) -> int:
    output = OUTPUT.parse(args)
    output.check()
    if args.trace:
        check_file(args.trace, force=output.force, flag="--trace")
    if args.break_on:
        raise CuvilError(
            "--break-on traps would stop the profile run", hint="leave out --break-on"
        )
    options = COMPILE.parse(args).with_debug(profile=True)
    loaded = MODEL.parse(args).load()
    cm = cuvil.compile(loaded.model, loaded.inputs, options=options.to_dict())
    for _ in range(args.warmup):
        cm(*loaded.inputs)
    cm.reset_profile()
    t0 = time.perf_counter_ns()
    for _ in range(args.calls):
        cm(*loaded.inputs)
    wall_us = (time.perf_counter_ns() - t0) / 1e3 / args.calls
    hz = cycles_per_second()
    output.write(format_table(_rows(cm, hz, args.calls), wall_us, loaded.source))
    if args.trace:
        events = trace_events(cm, loaded.inputs, hz)
        text = json.dumps({"traceEvents": events, "displayTimeUnit": "ms"}, indent=1)
        write_file(args.trace, text + "\n", force=output.force, flag="--trace")
    return EXIT_OK


def _rows(cm, hz: float, calls: int) -> list[dict]:
    """Per kernel, slowest first: nodes, op, kernel, µs per call, share."""
    kernels = {k.symbol: k for k in cm.kernels}
    rows = []
    for symbol, op, cycles, share in cm.profile():
        k = kernels[symbol]
        rows.append(
            {
                "nodes": ",".join(k.nodes) or "-",
                "op": op,
                "kernel": symbol,
                "us": cycles / hz * 1e6 / calls,
                "share": share,
            }
        )
    return rows


def format_table(rows: list[dict], wall_us: float, source: str) -> str:
    total = sum(r["us"] for r in rows)
    head = ("FX node(s)", "op", "kernel", "us/call", "%", "cum %")
    body, cum = [], 0.0
    for r in rows:
        cum += r["share"]
        body.append(
            (
                r["nodes"],
                r["op"],
                r["kernel"],
                f"{r['us']:.1f}",
                f"{r['share']:.1%}",
                f"{cum:.1%}",
            )
        )
    table = [head, *body]
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    lines = [
        "  ".join(
            c.ljust(w) if i < 3 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in table
    ]
    foot = (
        f"{source}: kernels {total:.1f} us of {wall_us:.1f} us per call "
        f"({total / wall_us:.0%}; the rest: the Python call, input checks, "
        "output allocation)"
        if wall_us > 0
        else ""
    )
    return "\n".join([*lines, "", foot]) + "\n"


def trace_events(cm, inputs, hz: float) -> list[dict]:
    """Trace Event Format complete events ("X") of one call: the call, then each
    kernel in call order, laid end to end from the call's start (µs)."""
    cm.reset_profile()
    start = time.perf_counter_ns()
    cm(*inputs)
    end = time.perf_counter_ns()
    cycles = {symbol: c for symbol, _, c, _ in cm.profile()}
    pid, tid = os.getpid(), threading.get_native_id()
    call_ts = start / 1e3
    events = [
        {
            "name": "cuvil_main",
            "cat": "call",
            "ph": "X",
            "ts": call_ts,
            "dur": (end - start) / 1e3,
            "pid": pid,
            "tid": tid,
            "args": {"model": cm.module.name},
        }
    ]
    ts = call_ts
    for k in sorted(cm.kernels, key=lambda k: k.call_index):
        dur = cycles[k.symbol] / hz * 1e6
        events.append(
            {
                "name": ",".join(k.nodes) or k.symbol,
                "cat": "kernel",
                "ph": "X",
                "ts": ts,
                "dur": dur,
                "pid": pid,
                "tid": tid,
                "args": {
                    "op": k.op_name,
                    "kernel": k.symbol,
                    "fx_nodes": list(k.nodes),
                    "source": k.source,
                    "cycles": int(cycles[k.symbol]),
                },
            }
        )
        ts += dur
    return events
