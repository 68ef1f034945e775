"""What the pass pipeline buys: kernels and latency per sample, O0 vs O3 with/without fusion.

    python benchmarks/bench_passes.py [--repeat 50] [--only mlp,resnet18] [--markdown]

Per sample: the number of kernels generated (one per op that is not a param, constant or
reshape) without passes and after O3's passes, and the median latency of three compiled
variants measured side by side in one process, 1 thread, interleaved (A B C A B C ...):

    O0-passes  opt_level O0 Cuvil pipeline (no passes), LLVM at O3
    O3-nofuse  O3 pipeline with enable_fusion=False (fold-bn, cse ... but no fusion)
    O3         O3 pipeline with fusion

LLVM optimizes all three at O3 (``pipeline`` picks Cuvil's passes independently), so the
ratios isolate Cuvil's passes. Compare ratios from one run, not absolute numbers.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

import cuvil
from cuvil.passes import default_pipeline

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from cuvil_debug import load_model  # noqa: E402

SAMPLES = ["mlp", "small_cnn", "resnet18", "transformer_block", "ew_chain"]


class EwChain(torch.nn.Module):
    """Synthetic: a tree of 9 elementwise ops on 256K floats (what fusion is for)."""

    def forward(self, x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        h = torch.nn.functional.gelu(x * 1.702 + b)
        return h * torch.sigmoid(x) + torch.tanh(x) * 0.5 - b.relu()


def _load(name: str):
    if name == "ew_chain":
        gen = torch.Generator().manual_seed(0)
        return EwChain(), (
            torch.randn(64, 4096, generator=gen),
            torch.randn(4096, generator=gen),
        )
    loaded = load_model(str(ROOT / "samples" / "models" / f"{name}.py"))
    return loaded.model, loaded.inputs


VARIANTS = {
    "O0-passes": default_pipeline("O0"),
    "O3-nofuse": default_pipeline("O3", enable_fusion=False),
    "O3": default_pipeline("O3"),
}


def kernels(cm) -> int:
    return len(cm.program.kernels)


def measure(fns: dict, inputs, repeat: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in fns}
    with torch.no_grad():
        for fn in fns.values():
            for _ in range(3):
                fn(*inputs)
        for _ in range(repeat):
            for name, fn in fns.items():
                t0 = time.perf_counter()
                fn(*inputs)
                times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


def run_sample(name: str, repeat: int) -> dict:
    model, inputs = _load(name)
    compiled, compile_s = {}, {}
    for variant, pipeline in VARIANTS.items():
        t0 = time.perf_counter()
        compiled[variant] = cuvil.compile(
            model,
            inputs,
            options={"opt_level": "O3", "pipeline": pipeline, "num_threads": 1},
        )
        compile_s[variant] = time.perf_counter() - t0
    with torch.no_grad():
        want = model(*inputs)
    for cm in compiled.values():
        torch.testing.assert_close(cm(*inputs), want, rtol=1e-4, atol=1e-5)
    lat = measure(compiled, inputs, repeat)
    return {
        "name": name,
        "kernels": {v: kernels(cm) for v, cm in compiled.items()},
        "latency": lat,
        "compile": compile_s,
    }


def format_rows(rows: list[dict], markdown: bool) -> str:
    head = [
        "sample",
        "kernels O0",
        "kernels O3-nofuse",
        "kernels O3",
        "O0 ms",
        "O3-nofuse ms",
        "O3 ms",
        "O3/O0",
        "O3/nofuse",
    ]
    lines = []
    for r in rows:
        k, lat = r["kernels"], r["latency"]
        lines.append(
            [
                r["name"],
                str(k["O0-passes"]),
                str(k["O3-nofuse"]),
                str(k["O3"]),
                f"{lat['O0-passes'] * 1e3:.3f}",
                f"{lat['O3-nofuse'] * 1e3:.3f}",
                f"{lat['O3'] * 1e3:.3f}",
                f"{lat['O3'] / lat['O0-passes']:.2f}",
                f"{lat['O3'] / lat['O3-nofuse']:.2f}",
            ]
        )
    if markdown:
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        return "\n".join(out + ["| " + " | ".join(r) + " |" for r in lines])
    widths = [max(len(x) for x in col) for col in zip(head, *lines)]
    return "\n".join(
        "  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in [head, *lines]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--only", help="comma-separated samples (default: all)")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(1)
    names = args.only.split(",") if args.only else SAMPLES
    rows = [run_sample(n, args.repeat) for n in names]
    print(format_rows(rows, args.markdown))


if __name__ == "__main__":
    main()
