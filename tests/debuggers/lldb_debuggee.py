"""Debuggee of the ``cuvil`` LLDB command tests: compile a sample with debug=True, call it.

    python lldb_debuggee.py MODEL_FILE OPT [--calls N] [--stats NODE]... [--recompile]
                            [--aot DIR | --load DIR]

Prints ``eager-stats NODE n=.. min=.. max=.. mean=..`` for each --stats node (eager
PyTorch, before anything is compiled), then compiles and calls the model N times and
prints ``cuvil-run OPT``. --recompile frees the compiled model (del + gc: its JIT object
is unregistered), compiles it again and calls it again (a notebook re-run); --aot saves
the compiled model to DIR and calls the library ``cuvil.load`` maps instead; --load
calls a bundle saved before (OPT is then only a label).
"""

import argparse
import gc

import torch
import torch.fx as fx

import cuvil
from cuvil_debug import load_model


def eager_stats(model, inputs, nodes: list[str]) -> None:
    values = {}

    class Recorder(fx.Interpreter):
        def run_node(self, n):
            values[n.name] = result = super().run_node(n)
            return result

    Recorder(fx.symbolic_trace(model)).run(*inputs)
    for node in nodes:
        t = values[node].double()
        print(
            f"eager-stats {node} n={t.numel()} min={t.min().item():.9g} "
            f"max={t.max().item():.9g} mean={t.mean().item():.9g}",
            flush=True,
        )


def run(model, inputs, opt: str, calls: int, aot: str | None, load: str | None):
    if load:
        cm = cuvil.load(load)
    else:
        cm = cuvil.compile(model, inputs, options={"debug": True, "opt_level": opt})
    if aot:
        cuvil.save(cm, aot, overwrite=True)
        del cm
        gc.collect()
        cm = cuvil.load(aot)
    for _ in range(calls):
        cm(*inputs)
    print(f"cuvil-run {opt}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("opt")
    p.add_argument("--calls", type=int, default=1)
    p.add_argument("--stats", action="append", default=[])
    p.add_argument("--recompile", action="store_true")
    p.add_argument("--aot", default=None)
    p.add_argument("--load", default=None)
    args = p.parse_args()
    loaded = load_model(args.model)
    model, inputs = loaded.model.eval(), list(loaded.inputs)
    with torch.no_grad():
        eager_stats(model, inputs, args.stats)
        run(model, inputs, args.opt, args.calls, args.aot, args.load)
        if args.recompile:
            gc.collect()  # the first compiled model is gone: its code is freed
            print("cuvil-freed", flush=True)
            run(model, inputs, args.opt, args.calls, args.aot, args.load)


if __name__ == "__main__":
    main()
