"""Latency of Cuvil against torch eager, ONNX Runtime and Inductor, side by side, on the
sample models and full-size real architectures (benchmarks/real_models.py).

    python benchmarks/bench_models.py [--threads 1] [--rounds 30] [--only a,b]
        [--inductor samples|all|none] [--write-md]

All contenders run in one process with the same thread count, interleaved (A B C A B C
...). With one thread each call is timed in **thread CPU time** (every contender runs on
the calling thread: a busy machine's other processes do not count); with more, in wall
time (the other threads' work must count). Reported: the median per call, the spread
(interquartile range / median), ratios Cuvil/eager, Cuvil/ORT, Cuvil/Inductor (below 1.0:
Cuvil is faster), Cuvil's GFLOP/s over the model's contractions and its share of the FMA
peak **measured in the same run** (a JIT'd loop of independent zmm FMA chains), Cuvil's
compile CPU time and its largest error against eager. ``--write-md`` rewrites the
generated section of BENCHMARKS.md with the table, the CPU and the peak.
"""

from __future__ import annotations

import argparse
import io
import platform
import re
import statistics
import sys
import time
import warnings
from pathlib import Path

import torch

import cuvil
from cuvil.codegen.host import host_info
from cuvil.codegen.im2col import conv_shape
from cuvil.ir import ops
from cuvil.ir.ops.fused import body_of

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_gemm import fma_peak_gflops  # noqa: E402
from real_models import CASES, SAMPLES, build  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- bench_models: begin -->", "<!-- bench_models: end -->"


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
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    sess = ort.InferenceSession(buf.getvalue(), so, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    feeds = {n: x.numpy() for n, x in zip(names, inputs)}
    return lambda *_: sess.run(None, feeds)


def inductor(model, inputs):
    try:
        fn = torch.compile(model)
        with torch.no_grad():
            fn(*inputs)
        return fn
    except Exception as e:  # noqa: BLE001 -- a contender that does not run is left out
        print(f"#   inductor: {type(e).__name__}: {str(e)[:120]}", file=sys.stderr)
        return None


def contraction_flops(module) -> int:
    """2 * multiply-adds of every conv / linear / matmul of the compiled module."""
    total = 0
    for op in module.main.ops:
        inner = body_of(module, op).ops[:1] if isinstance(op, ops.FusedOp) else [op]
        for o in inner:
            out = o.results[0].type if o.results else None
            if isinstance(o, ops.ConvOp):
                tx, tw = (v.type for v in o.operands[:2])
                cs = conv_shape(o.attrs, tx, tw, out)
                total += 2 * out.numel() * cs.k
            elif isinstance(o, (ops.LinearOp, ops.MatmulOp)):
                total += 2 * out.numel() * o.operands[0].type.shape[-1]
    return total


def measure(contenders: dict, inputs, rounds: int, threads: int) -> dict:
    clock = time.thread_time if threads == 1 else time.perf_counter
    with torch.no_grad():
        reps = {}
        for name, fn in contenders.items():
            for _ in range(2):
                fn(*inputs)
            t0 = clock()
            fn(*inputs)
            reps[name] = max(1, int(2e-3 / max(clock() - t0, 1e-6)))  # ~2 ms samples
        times = {name: [] for name in contenders}
        for _ in range(rounds):
            for name, fn in contenders.items():
                t0 = clock()
                for _ in range(reps[name]):
                    fn(*inputs)
                times[name].append((clock() - t0) / reps[name])
    out = {}
    for name, ts in times.items():
        q = statistics.quantiles(ts, n=4)
        out[name] = (statistics.median(ts) * 1e3, (q[2] - q[0]) / statistics.median(ts))
    return out


def run_case(case: str, threads: int, rounds: int, use_inductor: bool) -> dict:
    model, inputs = build(case)
    c0 = time.process_time()
    compiled = cuvil.compile(model, list(inputs), options={"num_threads": threads})
    compile_s = time.process_time() - c0
    with torch.no_grad():
        ref = model(*inputs)
    err = (
        (compiled(*inputs) - ref).abs().max() / ref.abs().max().clamp_min(1e-30)
    ).item()
    contenders = {"cuvil": compiled, "eager": model}
    ort_fn = onnx_runtime(model, inputs, threads)
    if ort_fn is not None:
        contenders["ort"] = ort_fn
    if use_inductor and (ind := inductor(model, inputs)) is not None:
        contenders["inductor"] = ind
    ms = measure(contenders, inputs, rounds, threads)
    flops = contraction_flops(compiled.module)
    return {"case": case, "ms": ms, "compile_s": compile_s, "err": err, "flops": flops}


def fmt_row(r: dict, peak: float) -> str:
    ms = r["ms"]
    cuvil_ms, spread = ms["cuvil"]

    def ratio(other: str) -> str:
        return f"{cuvil_ms / ms[other][0]:.2f}" if other in ms else "—"

    def cell(name: str) -> str:
        return f"{ms[name][0]:.3f}" if name in ms else "—"

    gflops = r["flops"] / (cuvil_ms * 1e-3) / 1e9
    spreads = "/".join(
        f"{ms[n][1]:.0%}" for n in ("cuvil", "eager", "ort", "inductor") if n in ms
    )
    return (
        f"| {r['case']} | {cell('cuvil')} | {cell('eager')} | {cell('ort')} | "
        f"{cell('inductor')} | {ratio('eager')} | **{ratio('ort')}** | {ratio('inductor')} | "
        f"{gflops:.0f} | {gflops / peak:.0%} | {spreads} | {r['compile_s']:.1f} | {r['err']:.1e} |"
    )


HEADER = (
    "| model | cuvil ms | eager ms | ort ms | inductor ms | c/eager | c/ort | c/inductor "
    "| cuvil GFLOP/s | % of peak | spread c/e/o/i | compile s (CPU) | rel. err |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def machine(peak: float, threads: int) -> str:
    host = host_info()
    name = platform.processor() or platform.machine()
    try:
        text = Path("/proc/cpuinfo").read_text()
        name = re.search(r"model name\s*:\s*(.*)", text).group(1).strip()
    except (OSError, AttributeError):
        pass
    feats = ", ".join(
        f for f in ("avx512f", "avx2", "fma", "amx-tile") if f in host.features
    )
    return (
        f"{name} (LLVM host CPU `{host.cpu}`; {feats}; L1d {host.l1 // 1024} KiB, "
        f"L2 {host.l2 // 1024} KiB per core), measured FMA peak **{peak:.0f} GFLOP/s** "
        f"per core; {threads} thread(s); torch {torch.__version__}, cuvil {cuvil.__version__}"
    )


def write_md(text: str) -> None:
    path = ROOT / "BENCHMARKS.md"
    doc = path.read_text()
    block = f"{BEGIN}\n{text}\n{END}"
    if BEGIN in doc:
        doc = re.sub(
            re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, doc, flags=re.S
        )
    else:
        head = "## Samples and real architectures vs eager, ORT and Inductor"
        doc = doc.replace("## Models vs", f"{head}\n\n{block}\n\n## Models vs", 1)
    path.write_text(doc)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument(
        "--only", default="", help="comma-separated cases: " + ", ".join(CASES)
    )
    ap.add_argument("--inductor", choices=("samples", "all", "none"), default="samples")
    ap.add_argument(
        "--write-md",
        action="store_true",
        help="rewrite BENCHMARKS.md's generated section",
    )
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    cases = [c for c in CASES if not args.only or c in args.only.split(",")]
    peak = fma_peak_gflops()
    rows = []
    print(
        f"# {machine(peak, args.threads)}; median of {args.rounds} interleaved samples"
    )
    print(HEADER)
    for case in cases:
        use_ind = args.inductor == "all" or (
            args.inductor == "samples" and case in SAMPLES
        )
        r = run_case(case, args.threads, args.rounds, use_ind)
        rows.append(r)
        print(fmt_row(r, peak), flush=True)
    peak = max(peak, fma_peak_gflops())  # again at the end: the machine is shared
    if args.write_md:
        clock = "thread CPU time" if args.threads == 1 else "wall time"
        text = (
            f"**Machine:** {machine(peak, args.threads)}. Per call: {clock}, median of "
            f"{args.rounds} interleaved samples; spread = IQR / median.\n\n"
            f"`python benchmarks/bench_models.py --threads {args.threads} --rounds {args.rounds} "
            f"--inductor {args.inductor} --write-md`\n\n{HEADER}\n"
            + "\n".join(fmt_row(r, peak) for r in rows)
        )
        write_md(text)


if __name__ == "__main__":
    sys.exit(main())
