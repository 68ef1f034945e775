"""Latency of Cuvil against torch eager, torch.jit trace+freeze and ONNX Runtime, side by side.

    python benchmarks/bench_models.py [--threads 1] [--repeat 50] [--only mlp_b1,resnet18_b1]
      [--opt O3] [--markdown]

All contenders run in one process with the same thread count, interleaved (A B C A B C ...),
and the median of each is reported, with the ratios Cuvil/eager and Cuvil/ORT (below 1.0 means
Cuvil is faster). Also: Cuvil's cold compile time and the process's peak RSS after each model.
Timings vary on shared machines: compare ratios from one run, not absolute numbers.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import platform
import resource
import statistics
import sys
import time
import warnings
from pathlib import Path

import torch

import cuvil

ROOT = Path(__file__).resolve().parents[1]
CASES = {  # name: (sample file, batch size)
    "mlp_b1": ("mlp", 1),
    "mlp_b8": ("mlp", 8),
    "small_cnn_b1": ("small_cnn", 1),
    "resnet18_b1": ("resnet18", 1),
    "transformer_b1": ("transformer_block", 1),
    "transformer_b8": ("transformer_block", 8),
}


def load_sample(name: str, batch: int):
    spec = importlib.util.spec_from_file_location(
        f"bench_{name}", ROOT / "samples/models" / f"{name}.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    model = mod.Model().eval()
    inputs = tuple(
        x.repeat(batch, *([1] * (x.dim() - 1))) for x in mod.example_inputs()
    )
    return model, inputs


def jit_freeze(model, inputs):
    with torch.no_grad():
        traced = torch.jit.trace(model, inputs)
        return torch.jit.freeze(traced)


def onnx_runtime(model, inputs, threads: int):
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, inputs, buf, dynamo=False, opset_version=17)
    so = ort.SessionOptions()
    so.intra_op_num_threads, so.inter_op_num_threads = threads, 1
    sess = ort.InferenceSession(buf.getvalue(), so, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    feeds = {n: x.numpy() for n, x in zip(names, inputs)}
    return lambda *_: sess.run(None, feeds)


def measure(contenders: dict, inputs, repeat: int) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in contenders}
    with torch.no_grad():
        for fn in contenders.values():  # warm up
            for _ in range(3):
                fn(*inputs)
        for _ in range(repeat):
            for name, fn in contenders.items():
                t0 = time.perf_counter()
                fn(*inputs)
                times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) * 1e3 for name, ts in times.items()}


def run_case(case: str, threads: int, repeat: int, opt: str) -> dict:
    model, inputs = load_sample(*CASES[case])
    t0 = time.perf_counter()
    compiled = cuvil.compile(
        model, list(inputs), options={"opt_level": opt, "num_threads": threads}
    )
    compile_s = time.perf_counter() - t0
    with torch.no_grad():
        ref = model(*inputs)
    err = (compiled(*inputs) - ref).abs().max().item()
    contenders = {"cuvil": compiled, "eager": model, "jit": jit_freeze(model, inputs)}
    ort_fn = onnx_runtime(model, inputs, threads)
    if ort_fn is not None:
        contenders["ort"] = ort_fn
    ms = measure(contenders, inputs, repeat)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "case": case,
        **ms,
        "compile_s": compile_s,
        "rss_mb": rss_mb,
        "max_err": err,
    }


def fmt_row(r: dict) -> str:
    ort = r.get("ort")
    ort_txt = f"{ort:8.3f}" if ort is not None else "     n/a"
    vs_ort = f"{r['cuvil'] / ort:6.2f}" if ort else "   n/a"
    return (
        f"| {r['case']:<15} | {r['cuvil']:8.3f} | {r['eager']:8.3f} | {r['jit']:8.3f} | "
        f"{ort_txt} | {r['cuvil'] / r['eager']:6.2f} | {vs_ort} | {r['compile_s']:6.2f} | "
        f"{r['rss_mb']:7.0f} | {r['max_err']:.1e} |"
    )


HEADER = (
    "| model           | cuvil ms |  eager ms |   jit ms |   ort ms | c/eager | c/ort | "
    "compile s | peak RSS MB | max err |\n|---|---|---|---|---|---|---|---|---|---|"
)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--opt", default="O3")
    ap.add_argument(
        "--only", default="", help="comma-separated cases: " + ", ".join(CASES)
    )
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    cases = [c for c in CASES if not args.only or c in args.only.split(",")]
    print(
        f"# {platform.processor() or platform.machine()}, {args.threads} thread(s), "
        f"torch {torch.__version__}, cuvil {cuvil.__version__}, opt {args.opt}, "
        f"median of {args.repeat}"
    )
    print(HEADER)
    for case in cases:
        print(fmt_row(run_case(case, args.threads, args.repeat, args.opt)), flush=True)


if __name__ == "__main__":
    sys.exit(main())
