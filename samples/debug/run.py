"""Compile a model with Cuvil and run it: the program to start under GDB or LLDB.

    python samples/debug/run.py MODEL [--opt O3] [--runs N] [--release] [--recompile]
        [--stats NODE ...] [--break-on NODE ...] [--aot DIR] [--crash null-arena]
        [--inject SPEC ...]

MODEL is a model file as the other commands take it (samples/models/small_cnn.py). It is
compiled with debug info (``--release``: without), called ``--runs`` times, and its result
compared with eager (``cuvil-run: <i> max-error <e>``). The walkthrough in
docs/DEBUGGING.md and the debugger tests (tests/debuggers) run it.

Prints ``eager-stats NODE: n=.. min=.. max=.. mean=..`` for each --stats node (the FX
node's eager value, float64 statistics) to compare with ``cuvil print NODE --stats``.
``--recompile`` frees the compiled module and compiles again (a notebook re-run) before
the second half of the runs; ``--aot DIR`` saves the model there and calls what
``cuvil.load`` returns; ``--crash null-arena`` calls the entry without its arena;
``--inject SPEC`` builds it with a fault of docs/FAULTS.md (the GDB hint of ``cuvil-debug
diff --inject`` passes it on).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import sys

import torch
import torch.fx as fx

import cuvil
from cuvil_debug import faults, load_model


def eager_stats(model, inputs, nodes: list[str]) -> None:
    values: dict[str, torch.Tensor] = {}

    class Recorder(fx.Interpreter):
        def run_node(self, n):
            result = super().run_node(n)
            values[n.name] = result
            return result

    with torch.no_grad():
        Recorder(fx.symbolic_trace(model)).run(*inputs)
    for node in nodes:
        t = values[node].double()
        print(
            f"eager-stats {node}: n={t.numel()} min={t.min().item():.9g} "
            f"max={t.max().item():.9g} mean={t.mean().item():.9g}",
            flush=True,
        )


def build(model, inputs, args):
    options = {"debug": not args.release, "opt_level": args.opt}
    if args.break_on:
        options["break_on"] = args.break_on
    hooks = faults.hooks(args.inject) if args.inject else None
    cm = cuvil.compile(model, inputs, options=options, hooks=hooks)
    if args.aot:
        cuvil.save(cm, args.aot, overwrite=True)
        return cuvil.load(args.aot)
    return cm


def crash(cm, inputs) -> None:
    """Call the native entry with a NULL arena: the first kernel that writes an
    intermediate faults (what `cuvil explain` is for)."""
    fn = cm._entry
    n_in = len(inputs)
    ins = (ctypes.c_void_p * n_in)(*[t.data_ptr() for t in inputs])
    out = torch.empty(1000)
    outs = (ctypes.c_void_p * 1)(out.data_ptr())
    params = (ctypes.c_void_p * max(len(cm._params), 1))(
        *[p.data_ptr() for p in cm._params]
    )
    fn(
        ctypes.cast(ins, ctypes.c_void_p),
        ctypes.cast(outs, ctypes.c_void_p),
        ctypes.cast(params, ctypes.c_void_p),
        None,
    )


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("--opt", default="O3")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--release", action="store_true")
    p.add_argument("--recompile", action="store_true")
    p.add_argument("--stats", nargs="*", default=[])
    p.add_argument("--break-on", nargs="*", default=[])
    p.add_argument("--aot", default=None)
    p.add_argument("--crash", choices=["null-arena"], default=None)
    p.add_argument("--inject", action="append", default=[], metavar="SPEC")
    args = p.parse_args(argv)
    loaded = load_model(args.model)
    model, inputs = loaded.model.eval(), list(loaded.inputs)
    eager_stats(model, inputs, args.stats)
    with torch.no_grad():
        expected = model(*inputs)
    cm = build(model, inputs, args)
    if args.crash:
        crash(cm, inputs)
    for i in range(args.runs):
        if args.recompile and i == args.runs // 2 and i > 0:
            del cm
            gc.collect()
            cm = build(model, inputs, args)
        with torch.no_grad():
            got = cm(*inputs)
        error = (got - expected).abs().max().item()
        print(f"cuvil-run: {i} max-error {error:.3g}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
