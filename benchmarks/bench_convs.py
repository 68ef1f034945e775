"""ResNet-18's convolutions one by one: Cuvil's direct kernel against the FMA peak and ORT.

    python benchmarks/bench_convs.py [--rounds 15] [--no-ort] [--shapes layer1,layer2]
        [--before] [--model]

Each distinct convolution of ResNet-18 at batch 1 (224x224, NHWC inside Cuvil) is
compiled as a lone kernel with the plan a model's build would pick (codegen/conv_plan.py
``default_conv_plan``: the host's measured table if there is one, else the cache model;
``CUVIL_PLANS=0`` forces the model), bias added, no epilogue. ORT runs the same
convolution as a one-node ONNX graph (NCHW in and out; its NCHWc transform adds a
reorder of input and output that a whole model does not pay per layer, so ORT's lone
figures are a little low). The FMA peak (24 independent zmm FMA chains) is measured in
every round. Everything interleaved (peak, then per shape Cuvil, ORT), one thread,
thread CPU time per call over ~2 ms samples; min and median over the rounds; the
order of the contenders reverses every other round (on this shared machine the one that
runs right after another model's call reads a colder L3).

``--before``: also the plan the model picked before streamed-weight convolutions with
padding could take the bordered form (layer3: 12-row in-place tiles instead of 14-row
bordered ones; docs/CONV.md), for the shapes where it differs, interleaved with the
rest. (Earlier runs in BENCHMARKS.md compared other "before" plans.)

``--model``: then the whole ResNet-18 b1 (cold compiles), with the current plans, with
the ``--before`` ones if asked, and ORT, interleaved the same way (two calls per
sample): median, min and IQR per call, % of the peak by contraction FLOPs, c/ort, and
the per-round ratio after/before.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_gemm import fma_peak_gflops  # noqa: E402

from cuvil.codegen.conv_plan import (  # noqa: E402
    ConvPlan,
    default_conv_plan,
    inplace_rows,
    pack_conv_weight,
    tile_rows,
)
from cuvil.codegen.host import host_info  # noqa: E402
from cuvil.codegen.im2col import ConvShape  # noqa: E402
from cuvil.runtime.gemm_jit import compile_conv  # noqa: E402

BUDGET_S = 0.002

# (name, C, H, O, kernel, stride, padding, count in the model)
RESNET18 = [
    ("stem 7x7 s2", 3, 224, 64, 7, 2, 3, 1),
    ("layer1 3x3", 64, 56, 64, 3, 1, 1, 4),
    ("layer2.0 3x3 s2", 64, 56, 128, 3, 2, 1, 1),
    ("layer2 3x3", 128, 28, 128, 3, 1, 1, 3),
    ("layer2 1x1 s2", 64, 56, 128, 1, 2, 0, 1),
    ("layer3.0 3x3 s2", 128, 28, 256, 3, 2, 1, 1),
    ("layer3 3x3", 256, 14, 256, 3, 1, 1, 3),
    ("layer3 1x1 s2", 128, 28, 256, 1, 2, 0, 1),
    ("layer4.0 3x3 s2", 256, 14, 512, 3, 2, 1, 1),
    ("layer4 3x3", 512, 7, 512, 3, 1, 1, 3),
    ("layer4 1x1 s2", 256, 14, 512, 1, 2, 0, 1),
]


def shape_of(c, h, o, k, s, p) -> ConvShape:
    oh = (h + 2 * p - k) // s + 1
    return ConvShape(1, 1, c, o, (h, h), (oh, oh), (k, k), (s, s), (p, p), (1, 1))


def before_plan(plan: ConvPlan) -> ConvPlan:
    """The model's plan before streamed-weight convs with padding could take the
    bordered form (ResNet-18's layer3: 12-row in-place tiles, 16 x 12 + 4, instead
    of 14 bordered tiles of one output row)."""
    cs = plan.cs
    if not (plan.padded and plan.prefetch and any(cs.padding) and cs.cg >= plan.vw):
        return plan
    tall = tile_rows(plan.nr // plan.vw, host_info().vector_registers)
    mr = inplace_rows(tall, cs.spatial_out)
    ahead = -(-cs.spatial_out // mr) <= 32
    return dataclasses.replace(plan, mr=mr, padded=False, ahead=ahead)


def cells(times: list[float], flops: int, peak: float) -> str:
    lo, md = min(times), statistics.median(times)
    return (
        f"{lo * 1e3:.3f}/{md * 1e3:.3f}, "
        f"{flops / lo / 1e9 / peak:.0%}/{flops / md / 1e9 / peak:.0%}"
    )


def describe(plan: ConvPlan) -> str:
    form = "bordered" if plan.padded else "in place"
    pf = (" pf" if plan.prefetch else "") + (" ahead" if plan.ahead else "")
    return f"{plan.mr}x{plan.nr} {form}{pf}"


def cuvil_call(cs: ConvShape, x, w, bias, plan: ConvPlan):
    kernel = compile_conv(plan, bias=True)
    xn = x.permute(0, 2, 3, 1).contiguous()
    packed, out = pack_conv_weight(w, plan), torch.empty(cs.n, *cs.outs, cs.og)

    def call():
        kernel(out, xn, packed, bias)

    def result():
        call()
        return out.permute(0, 3, 1, 2)

    return plan, call, result


def ort_call(x, w, bias, s, p):
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    node = helper.make_node(
        "Conv", ["x", "w", "b"], ["y"], strides=[s, s], pads=[p] * 4
    )
    graph = helper.make_graph(
        [node],
        "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [
            numpy_helper.from_array(w.numpy(), "w"),
            numpy_helper.from_array(bias.numpy(), "b"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(
        model.SerializeToString(), opts, providers=["CPUExecutionProvider"]
    )
    feed = {"x": x.numpy()}
    return lambda: sess.run(None, feed)


def timed(fn, reps: int) -> float:
    t0 = time.thread_time()
    for _ in range(reps):
        fn()
    return (time.thread_time() - t0) / reps


def reps_for(fn) -> int:
    fn()
    t0 = time.thread_time()
    fn()
    return max(1, int(BUDGET_S / max(time.thread_time() - t0, 1e-6)))


def whole_model(rounds: int, before: bool, peak: float) -> None:
    from bench_models import contraction_flops, onnx_runtime
    from real_models import build

    import cuvil
    from cuvil.codegen import conv_plan

    model, inputs = build("resnet18_b1")
    opts = {"num_threads": 1}
    cuvil.compile(model, list(inputs), options=opts)  # torch's first trace
    contenders, cpu = {}, {}
    current = conv_plan.model_conv_plan
    for name in ("before", "cuvil") if before else ("cuvil",):
        if name == "before":
            conv_plan.model_conv_plan = lambda cs, host=None: before_plan(
                current(cs, host)
            )
        t0 = time.process_time()
        contenders[name] = cuvil.compile(model, list(inputs), options=opts)
        cpu[name] = time.process_time() - t0
        conv_plan.model_conv_plan = current
    contenders["ort"] = onnx_runtime(model, inputs, 1)
    flops = contraction_flops(contenders["cuvil"].module)
    ts = {k: [] for k in contenders}
    with torch.no_grad():
        for f in contenders.values():
            f(*inputs)
        for r in range(rounds):
            runs = list(contenders.items())
            for k, f in runs if r % 2 else runs[::-1]:
                t0 = time.thread_time()
                f(*inputs)
                f(*inputs)
                ts[k].append((time.thread_time() - t0) / 2)
    load = os.getloadavg()
    print(f"ResNet-18 b1, {rounds} rounds, load average {load[0]:.1f} {load[1]:.1f}")
    print(
        "| contender | median ms | min ms | IQR/median | % peak med/min | compile s |"
    )
    print("|---|---|---|---|---|---|")
    for k, t in ts.items():
        md, q = statistics.median(t), statistics.quantiles(t, n=4)
        print(
            f"| {k} | {md * 1e3:.2f} | {min(t) * 1e3:.2f} | {(q[2] - q[0]) / md:.0%} | "
            f"{flops / md / 1e9 / peak:.0%}/{flops / min(t) / 1e9 / peak:.0%} | "
            f"{cpu.get(k, 0):.2f} |"
        )
    med = {k: statistics.median(t) for k, t in ts.items()}
    line = f"c/ort {med['cuvil'] / med['ort']:.3f}"
    if before:
        pairs = [a / b for a, b in zip(ts["cuvil"], ts["before"], strict=True)]
        line += (
            f"; before/ort {med['before'] / med['ort']:.3f}; per-round cuvil/before "
            f"median {statistics.median(pairs):.3f}"
        )
    print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--no-ort", action="store_true")
    parser.add_argument("--shapes", default="", help="names containing these words")
    parser.add_argument("--before", action="store_true", help="and the old plans")
    parser.add_argument("--model", action="store_true", help="and ResNet-18 whole")
    args = parser.parse_args()
    torch.set_num_threads(1)
    words = [w for w in args.shapes.split(",") if w]
    rows = [r for r in RESNET18 if not words or any(w in r[0] for w in words)]
    gen = torch.Generator().manual_seed(0)
    jobs = []
    for name, c, h, o, k, s, p, count in rows:
        cs = shape_of(c, h, o, k, s, p)
        x = torch.randn(1, c, h, h, generator=gen)
        w = torch.randn(o, c, k, k, generator=gen) / (c * k * k) ** 0.5
        bias = torch.randn(o, generator=gen)
        plan = default_conv_plan(cs)
        plan, call, result = cuvil_call(cs, x, w, bias, plan)
        ref = torch.nn.functional.conv2d(x, w, bias, stride=s, padding=p)
        err = ((result() - ref).abs().max() / ref.abs().max()).item()
        calls = {"cuvil": call}
        if not args.no_ort:
            calls["ort"] = ort_call(x, w, bias, s, p)
        old = before_plan(plan)
        if args.before and old != plan:
            calls["before"] = cuvil_call(cs, x, w, bias, old)[1]
        flops = 2 * cs.spatial_out * o * cs.k
        jobs.append(
            (
                name,
                count,
                plan,
                flops,
                calls,
                [reps_for(f) for f in calls.values()],
                err,
            )
        )
    peaks, times = [], [{k: [] for k in j[4]} for j in jobs]
    for r in range(args.rounds):
        peaks.append(fma_peak_gflops())
        for job, ts in zip(jobs, times, strict=True):
            runs = list(zip(job[4].values(), job[5], ts.values(), strict=True))
            for fn, reps, t in runs if r % 2 else runs[::-1]:
                t.append(timed(fn, reps))
    peak = statistics.median(peaks)
    load = os.getloadavg()
    print(
        f"FMA peak median {peak:.0f} GFLOP/s (min {min(peaks):.0f}, max "
        f"{max(peaks):.0f}); load average {load[0]:.1f} {load[1]:.1f}; "
        f"{args.rounds} rounds"
    )
    print(
        "| conv | x | plan | cuvil ms min/med | GFLOP/s (med) | % peak min/med "
        "| before: plan, ms min/med, % peak min/med "
        "| ort ms min/med | ort % peak (med) | c/ort (med) | rel. err |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    tot = {"cuvil": 0.0, "ort": 0.0, "before": 0.0}
    flops_all = 0
    for (name, count, plan, flops, _, _, err), ts in zip(jobs, times, strict=True):
        flops_all += count * flops
        med = {k: statistics.median(t) for k, t in ts.items()}
        for k in tot:
            tot[k] += count * med.get(k, med["cuvil"] if k == "before" else 0.0)

        line = (
            f"| {name} | {count} | {describe(plan)} | "
            f"{min(ts['cuvil']) * 1e3:.3f}/{med['cuvil'] * 1e3:.3f} | "
            f"{flops / med['cuvil'] / 1e9:.0f} | "
            f"{flops / min(ts['cuvil']) / 1e9 / peak:.0%}/"
            f"{flops / med['cuvil'] / 1e9 / peak:.0%} | "
        )
        old = before_plan(plan)
        line += (
            f"{describe(old)}, {cells(ts['before'], flops, peak)} | "
            if "before" in ts
            else "same | "
        )
        if "ort" in ts:
            line += (
                f"{min(ts['ort']) * 1e3:.3f}/{med['ort'] * 1e3:.3f} | "
                f"{flops / med['ort'] / 1e9 / peak:.0%} | "
                f"{med['cuvil'] / med['ort']:.2f} |"
            )
        else:
            line += "— | — | — |"
        print(line + f" {err:.1e} |")
    summary = (
        f"all convs (medians, weighted by count): cuvil {tot['cuvil'] * 1e3:.2f} ms "
        f"= {flops_all / tot['cuvil'] / 1e9 / peak:.0%} of peak"
    )
    if args.before:
        summary += (
            f"; before {tot['before'] * 1e3:.2f} ms = "
            f"{flops_all / tot['before'] / 1e9 / peak:.0%}"
        )
    if tot["ort"]:
        summary += (
            f"; ort {tot['ort'] * 1e3:.2f} ms = "
            f"{flops_all / tot['ort'] / 1e9 / peak:.0%}; "
            f"c/ort {tot['cuvil'] / tot['ort']:.2f}"
        )
    print(summary)
    if args.model:
        whole_model(args.rounds * 3, args.before, peak)


if __name__ == "__main__":
    main()
