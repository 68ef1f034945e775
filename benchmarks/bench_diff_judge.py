"""The float64 judge of `cuvil-debug diff`: false alarms on clean models, margins, and
which subtle faults each judge finds.

    python benchmarks/bench_diff_judge.py              # samples x O0/O3 x 1/2 threads
    python benchmarks/bench_diff_judge.py --zoo        # + tiny zoo models at O3
    python benchmarks/bench_diff_judge.py --faults     # the subtle faults, both judges

Clean: every sample diffed under the float64 judge, normwise (RMSE) and --elementwise
(max abs error), at -O0 and -O3 with 1 and 2 kernel threads. For each run: whether a
first divergence was reported (a false alarm), and the largest ratio of a value's error
to its bound over every node, stage and mode (the margin: a false alarm needs > 1).

Faults: each subtle fault (docs/FAULTS.md) at a node of a sample, diffed with the
float64 judge and with the normwise one: the first divergence each reports.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SAMPLES = ["mlp", "small_cnn", "transformer_block", "resnet18"]
ZOO = [
    *("gpt2", "llama", "bert", "t5", "vit", "whisper-encoder"),  # transformers
    *("resnet18", "mobilenet_v3_small", "convnext_tiny", "vit_b_16"),  # torchvision
]
# (sample, fault, the node the diff should name, its stage)
FAULTS = [
    ("resnet18", "kernel:maxpool:ulp", "maxpool", "native"),
    ("resnet18", "pass:layer1_1_relu_1:ulp", "layer1_1_relu_1", "opt"),
    ("resnet18", "kernel:layer2_0_relu:scale{1.0001}", "layer2_0_relu", "native"),
    ("resnet18", "kernel:layer3_0_relu:accumulate", "layer3_0_relu", "native"),
    ("transformer_block", "lowering:ffn_act:scale{1.0001}", "ffn_act", "ir"),
    ("transformer_block", "kernel:softmax:accumulate", "softmax", "native"),
    ("mlp", "pass:fc2:accumulate", "fc2", "opt"),
    ("small_cnn", "kernel:block1_pool:ulp", "block1_pool", "native"),
]


def _sample(name: str):
    from cuvil_debug.loader import load_model

    loaded = load_model(str(ROOT / "samples" / "models" / f"{name}.py"))
    return loaded.model, loaded.inputs


def _zoo(name: str):
    sys.path.insert(0, str(ROOT / "tests"))
    from zoo import models

    model, inputs = models.case(models.find(name))
    return model, inputs


def margin(report) -> tuple[float, str]:
    """The largest error/bound of any value (and where), over stages and modes."""
    worst, where = 0.0, "-"
    for r in report.rows:
        for stage, s in r.stages.items():
            for mode, m in (("iso", s.isolated), ("prop", s.propagated)):
                if m is None or m.judge != "float64" or m.excess is None:
                    continue
                if m.excess > worst:
                    worst, where = m.excess, f"{r.name} {stage} {mode}"
    return worst, where


def clean(cases, levels, threads) -> int:
    from cuvil_debug.diff.engine import DiffOptions

    alarms = 0
    print(f"{'model':22s} {'-O':3s} {'thr':3s} {'measure':8s} {'alarm':28s} margin")
    for name, build in cases:
        model, inputs = build(name)
        for level in levels:
            for n in threads:
                for elementwise in (False, True):
                    opts = DiffOptions(
                        opt_level=level, num_threads=n, normwise=not elementwise
                    )
                    report = _diff(model, inputs, opts)
                    first = report.first
                    alarm = f"{first.node} ({first.stage})" if first else "none"
                    alarms += first is not None
                    worst, where = margin(report)
                    print(
                        f"{name:22s} {level:3s} {n:<3d} "
                        f"{'max_abs' if elementwise else 'rmse':8s} {alarm:28s} "
                        f"{worst:.2f} at {where}",
                        flush=True,
                    )
    return alarms


def _diff(model, inputs, opts):
    """fx's capture, else torch.export's (Hugging Face models)."""
    from dataclasses import replace

    from cuvil.errors import FrontendError
    from cuvil_debug.diff.engine import run_diff

    try:
        return run_diff(model, inputs, opts)
    except FrontendError:
        export = replace(opts.compile, frontend="export")
        return run_diff(model, inputs, replace(opts, compile=export))


def faults() -> None:
    from cuvil_debug import faults as f
    from cuvil_debug.diff.engine import DiffOptions, run_diff

    print(f"{'sample':18s} {'fault':38s} {'float64 judge':34s} normwise judge")
    for name, spec, node, stage in FAULTS:
        model, inputs = _sample(name)
        found = []
        for judge in ("float64", "normwise"):
            with f.inject(spec):
                report = run_diff(model, inputs, DiffOptions(judge=judge))
            first = report.first
            ok = first is not None and (first.node, first.stage) == (node, stage)
            what = f"{first.node} ({first.stage})" if first else "missed"
            found.append(f"{what}{' ✓' if ok else ''}")
        print(f"{name:18s} {spec:38s} {found[0]:34s} {found[1]}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zoo", action="store_true", help="also the tiny zoo models (O3)")
    ap.add_argument("--faults", action="store_true", help="only the subtle faults")
    ap.add_argument("--quick", action="store_true", help="O3, 1 thread only")
    args = ap.parse_args()
    t0 = time.perf_counter()
    if args.faults:
        faults()
        return
    levels = ["O3"] if args.quick else ["O0", "O3"]
    threads = [1] if args.quick else [1, 2]
    alarms = clean([(s, _sample) for s in SAMPLES], levels, threads)
    if args.zoo:
        alarms += clean([(z, _zoo) for z in ZOO], levels, [1])
    print(f"false alarms: {alarms}   ({time.perf_counter() - t0:.0f} s)")
    sys.exit(1 if alarms and not math.isnan(alarms) else 0)


if __name__ == "__main__":
    main()
