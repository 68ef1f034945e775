"""Debuggee of the DWARF and break_on tests: compile a sample, call it, print a line.

    python dwarf_debuggee.py MODEL_FILE OPT_LEVEL debug|release [--break-on NODE]...
                             [--calls N]

Compiles MODEL_FILE's ``Model`` for its ``example_inputs()`` at OPT_LEVEL with
``debug`` on or off (and ``break_on``), calls it N times (default 1) and prints
``cuvil-run: <opt> <debug|release> <max error>``. Under ``gdb -ex run`` a break_on
build stops with SIGTRAP in the node's kernel; without a debugger it would die of it.
"""

import argparse
import importlib.util

import torch

import cuvil


def load(path: str):
    spec = importlib.util.spec_from_file_location("sample_model", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.Model().eval(), mod.example_inputs()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("opt_level")
    parser.add_argument("build", choices=("debug", "release"))
    parser.add_argument("--break-on", action="append", default=[])
    parser.add_argument("--calls", type=int, default=1)
    args = parser.parse_args()
    model, inputs = load(args.model)
    with torch.no_grad():
        expected = model(*inputs)
    options = {
        "opt_level": args.opt_level,
        "debug": args.build == "debug",
        "break_on": args.break_on,
    }
    compiled = cuvil.compile(model, inputs, options=options)
    for _ in range(args.calls):
        err = (compiled(*inputs) - expected).abs().max().item()
    print(f"cuvil-run: {args.opt_level} {args.build} {err:.3g}", flush=True)


if __name__ == "__main__":
    main()
