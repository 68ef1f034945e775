"""Check that every labelled model in this folder fails capture under its frontend.

Usage (from the repository root):
    /work/main/.venv/bin/python samples/failures/written/_check.py [NAME.py ...]

For each file in labels.json: import it, build the model (.eval()), run it eagerly,
then capture it with Cuvil under the labelled frontend (not under torch.no_grad()):
  fx:            GraphModule(model, torch.fx.Tracer().trace(model)), then
                 cuvil.frontend.lower(model, inputs, frontend="fx", gm=gm)
  export:        torch.export.export(model, inputs, strict=False[, dynamic_shapes])
                 then cuvil.frontend.lower(ep, inputs, frontend="export")
  export-strict: the same with strict=True
Prints one row per file; exits 1 if any model captures successfully.
This script does not use cuvil_debug.triage.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

import torch

import cuvil.frontend

HERE = Path(__file__).resolve().parent


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"written_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # torch.export(strict=True) looks the module up
    spec.loader.exec_module(mod)
    model = mod.Model()
    model.eval()
    return mod, model, tuple(mod.example_inputs())


def first_line(e: BaseException) -> str:
    s = str(e).strip()
    return s.splitlines()[0][:150] if s else ""


def eager(model, inputs):
    try:
        with torch.no_grad():
            model(*copy.deepcopy(inputs))
    except Exception as e:  # noqa: BLE001
        return f"fail {type(e).__name__}: {first_line(e)}"
    return "ok"


def capture(mod, model, inputs, frontend):
    try:
        if frontend == "fx":
            gm = torch.fx.GraphModule(model, torch.fx.Tracer().trace(model))
            cuvil.frontend.lower(model, inputs, frontend="fx", gm=gm)
        else:
            kw = {}
            if getattr(mod, "DYNAMIC_SHAPES", None) is not None:
                kw["dynamic_shapes"] = mod.DYNAMIC_SHAPES
            ep = torch.export.export(
                model, inputs, strict=(frontend == "export-strict"), **kw
            )
            cuvil.frontend.lower(ep, inputs, frontend="export")
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {first_line(e)}"
    return "ok"


def main(argv):
    labels = json.loads((HERE / "labels.json").read_text())
    names = argv or sorted(labels)
    compiled, counts = [], Counter()
    warnings.simplefilter("ignore")
    for name in names:
        lab = labels[name]
        t0 = time.perf_counter()
        try:
            mod, model, inputs = load(HERE / name)
        except Exception as e:  # noqa: BLE001
            print(f"{name:38s} LOAD ERROR {type(e).__name__}: {first_line(e)}")
            compiled.append(name)
            continue
        ev = eager(model, inputs)
        mod, model, inputs = load(HERE / name)  # fresh state for the capture
        cap = capture(mod, model, inputs, lab["frontend"])
        dt = time.perf_counter() - t0
        counts[(lab["category"], "eager ok" if ev == "ok" else "eager fail")] += 1
        if cap == "ok":
            compiled.append(name)
        print(f"{name:38s} {lab['frontend']:13s} {lab['category']:29s} {dt:5.1f}s")
        print(f"    eager:   {ev}")
        print(f"    capture: {cap}")
    print()
    print("| category | eager ok | eager fail |")
    print("|---|---|---|")
    for cat in sorted({c for c, _ in counts}):
        print(
            f"| {cat} | {counts[(cat, 'eager ok')]} | {counts[(cat, 'eager fail')]} |"
        )
    print(f"\n{len(names) - len(compiled)} of {len(names)} fail capture")
    if compiled:
        print("COMPILED (not failures):", ", ".join(compiled))
    return 1 if compiled else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
