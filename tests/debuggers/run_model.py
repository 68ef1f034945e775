"""Debuggee for the debugger tests: compile a sample model with debug info and run it.

    python run_model.py MODEL_FILE [OPT_LEVEL ...] [--aot DIR]

Prints one ``cuvil-run: <opt> <max error>`` line per compiled variant.
"""

import importlib.util
import sys

import torch

import cuvil


def load(path: str):
    spec = importlib.util.spec_from_file_location("sample_model", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.Model().eval(), mod.example_inputs()


def main(argv: list[str]) -> None:
    model, inputs = load(argv[0])
    with torch.no_grad():
        expected = model(*inputs)
    keep = []  # a freed JIT object leaves breakpoints in unmapped memory
    for opt in argv[1:] or ["O0"]:
        cm = cuvil.compile(model, inputs, options={"debug": True, "opt_level": opt})
        keep.append(cm)
        err = (cm(*inputs) - expected).abs().max().item()
        print(f"cuvil-run: {opt} {err:.3g}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
