"""int8 / bf16 against float Cuvil, ONNX Runtime int8 and torch.ao int8, in one run.

    python benchmarks/bench_quant.py [--repeat 30] [--only resnet18_b1,transformer_b1]
        [--calib 8] [--eval 4] [--gemm-only | --no-gemm]

Models (1 thread, thread-CPU time per call, contenders interleaved A B C A B C ...,
medians; accuracy on generated evaluation batches against float eager: output SQNR and
top-1 agreement of the last dim's argmax per row):

- cuvil f32 / int8 (static, calibrated on generated batches) / int8 dynamic / bf16;
- ONNX Runtime f32, and int8 quantized with ORT's own tool (``quantize_static``: QDQ,
  per-channel int8 weights, uint8 activations, MinMax on the same calibration batches);
- torch.ao int8: FX graph mode ``prepare_fx`` / ``convert_fx`` with the x86 qconfig
  (fbgemm / oneDNN kernels), where it converts the model, else ``quantize_dynamic``.

GEMMs (``--no-gemm`` skips): throughput of Cuvil's int8 (AMX / VNNI / portable) and bf16
(AMX / AVX512-BF16 / portable) GEMMs and its float32 GEMM, in GOP/s and as a multiple
of the float32 FMA peak measured in the same run (bench_gemm.fma_peak_gflops).
"""

from __future__ import annotations

import argparse
import io
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

import torch

import cuvil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_gemm  # noqa: E402
from real_models import sample as load_sample  # noqa: E402

CASES = {
    "resnet18_b1": ("resnet18", 1),
    "transformer_b1": ("transformer_block", 1),
    "mlp_b8": ("mlp", 8),
    "small_cnn_b1": ("small_cnn", 1),
}
GEMMS = [(512, 512, 512), (3136, 64, 576), (196, 256, 2304), (128, 1024, 256)]


def _thread_time_call(fn, reps: int) -> float:
    start = time.thread_time()
    for _ in range(reps):
        fn()
    return (time.thread_time() - start) / reps


def fma_peak_gflops() -> float:
    """bench_gemm's FMA roofline kernel, timed in thread-CPU time (a wall-clock peak
    on a shared machine counts other processes' time)."""
    bench_gemm.time_call = _thread_time_call
    return bench_gemm.fma_peak_gflops()


_DOTS = {  # kernel: (intrinsic, accumulator lanes type, operand type, ops per lane)
    "bf16 avx512": ("llvm.x86.avx512bf16.dpbf16ps.512", "f32", ("bf16", 32), 4),
    "int8 avx512": ("llvm.x86.avx512.vpdpbusd.512", "i32", ("i32", 16), 8),
}


def dot_peak_gops(kernel: str) -> float:
    """GOP/s of 24 independent chains of the kernel's dot-product instruction (no
    memory traffic): the ceiling of its GEMM on this core, thread-CPU time."""
    import ctypes

    import llvmlite.binding as llvm
    from llvmlite import ir

    from cuvil.codegen.qsimd import BF16
    from cuvil.runtime.gemm_jit import _target_machine

    name, acc_t, (op_t, op_n), per_lane = _DOTS[kernel]
    scalar = {"f32": ir.FloatType(), "i32": ir.IntType(32)}
    acc = ir.VectorType(scalar[acc_t], 16)
    op = ir.VectorType(BF16 if op_t == "bf16" else scalar[op_t], op_n)
    tm = _target_machine()
    module = ir.Module(name="dot")
    module.triple, module.data_layout = tm.triple, str(tm.target_data)
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ir.IntType(64)]), "dot")
    dot = ir.Function(module, ir.FunctionType(acc, [acc, op, op]), name)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    entry, body, end = b.block, fn.append_basic_block("body"), fn.append_basic_block()
    b.branch(body)
    b.position_at_end(body)
    iv = b.phi(ir.IntType(64))
    accs = [b.phi(acc) for _ in range(24)]
    x = ir.Constant(op, None)  # zeroinitializer: no denormal or overflow slowdowns
    new = [b.call(dot, [a, x, x]) for a in accs]
    nxt = b.add(iv, ir.Constant(ir.IntType(64), 1))
    b.cbranch(b.icmp_unsigned("<", nxt, fn.args[0]), body, end)
    iv.add_incoming(ir.Constant(ir.IntType(64), 0), entry)
    iv.add_incoming(nxt, body)
    for phi, out in zip(accs, new, strict=True):
        phi.add_incoming(ir.Constant(acc, None), entry)
        phi.add_incoming(out, body)
    b.position_at_end(end)
    sink = ir.GlobalVariable(module, acc, "sink")
    sink.initializer = ir.Constant(acc, None)
    for v in new:
        b.store(v, sink, align=64)
    b.ret_void()
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(str(module)), tm)
    engine.finalize_object()
    run = ctypes.CFUNCTYPE(None, ctypes.c_int64)(engine.get_function_address("dot"))
    iters = 1_000_000
    best = min(_thread_time_call(lambda: run(iters), 1) for _ in range(5))
    return 24 * 16 * per_lane * iters / best / 1e9


def generated(inputs, n: int, seed: int) -> list[tuple[torch.Tensor, ...]]:
    g = torch.Generator().manual_seed(seed)
    return [tuple(torch.randn(x.shape, generator=g) for x in inputs) for _ in range(n)]


def thread_ms(fn, inputs) -> float:
    t0 = time.thread_time()
    fn(*inputs)
    return (time.thread_time() - t0) * 1e3


def spread(ts: list[float]) -> tuple[float, float]:
    """(median, interquartile range) of the samples."""
    q = statistics.quantiles(ts, n=4)
    return statistics.median(ts), q[2] - q[0]


def interleaved(contenders: dict, inputs, repeat: int) -> dict[str, tuple]:
    times: dict[str, list[float]] = {name: [] for name in contenders}
    with torch.no_grad():
        for fn in contenders.values():
            for _ in range(3):
                fn(*inputs)
        for _ in range(repeat):
            for name, fn in contenders.items():
                times[name].append(thread_ms(fn, inputs))
    return {name: spread(ts) for name, ts in times.items()}


def accuracy(fn, model, evals) -> tuple[float, float]:
    """(output SQNR dB, top-1 agreement) against float eager over the eval batches."""
    refs, outs = [], []
    with torch.no_grad():
        for batch in evals:
            refs.append(model(*batch).reshape(-1, model(*batch).shape[-1]))
            out = fn(*batch)
            out = out[0] if isinstance(out, list) else out
            outs.append(torch.as_tensor(out).reshape(refs[-1].shape))
    ref, got = torch.cat(refs).double(), torch.cat(outs).double()
    sqnr = 10 * torch.log10(
        ref.pow(2).sum() / (ref - got).pow(2).sum().clamp_min(1e-30)
    )
    agree = (ref.argmax(-1) == got.argmax(-1)).double().mean()
    return float(sqnr), float(agree)


# ---- contenders ---------------------------------------------------------------------------
def cuvil_builds(model, inputs, calib) -> dict:
    builds = {"cuvil f32": cuvil.compile(model, list(inputs))}
    builds["cuvil int8"] = cuvil.compile(
        model, list(inputs), quantize="int8", calibration_data=calib
    )
    builds["cuvil int8 dyn"] = cuvil.compile(
        model, list(inputs), quantize={"int8": True, "dynamic": True}
    )
    builds["cuvil bf16"] = cuvil.compile(model, list(inputs), quantize="bf16")
    return builds


def onnx_bytes(model, inputs) -> bytes:
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, inputs, buf, dynamo=False, opset_version=17)
    return buf.getvalue()


def ort_session(data, threads: int = 1):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads, so.inter_op_num_threads = threads, 1
    sess = ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    return lambda *xs: sess.run(None, {n: x.numpy() for n, x in zip(names, xs)})[0]


def ort_int8(model, inputs, calib, tmp: Path):
    """The model quantized by ONNX Runtime's own static quantization tool."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    src, dst = tmp / "f32.onnx", tmp / "int8.onnx"
    src.write_bytes(onnx_bytes(model, inputs))

    class Reader(CalibrationDataReader):
        def __init__(self, sess_inputs) -> None:
            self.batches = iter(
                {n: x.numpy() for n, x in zip(sess_inputs, batch)} for batch in calib
            )

        def get_next(self):
            return next(self.batches, None)

    import onnxruntime as ort

    names = [i.name for i in ort.InferenceSession(str(src)).get_inputs()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quantize_static(
            str(src),
            str(dst),
            Reader(names),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
        )
    return ort_session(dst.read_bytes())


def torch_ao_int8(model, inputs, calib):
    """(callable, how) torch.ao's x86 int8 model: FX static, else dynamic linears."""
    import copy

    from torch.ao.quantization import get_default_qconfig_mapping, quantize_dynamic
    from torch.ao.quantization import quantize_fx as qf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.backends.quantized.engine = "x86"
        try:
            prepared = qf.prepare_fx(
                copy.deepcopy(model), get_default_qconfig_mapping("x86"), inputs
            )
            with torch.no_grad():
                for batch in calib:
                    prepared(*batch)
            converted = qf.convert_fx(prepared)
            with torch.no_grad():
                converted(*inputs)
            return converted, "FX static (x86)"
        except Exception as e:  # noqa: BLE001 - reported, then the dynamic fallback
            why = f"{type(e).__name__}"
        dyn = quantize_dynamic(copy.deepcopy(model), {torch.nn.Linear}, torch.qint8)
        return dyn, f"dynamic Linear (FX static failed: {why})"


def run_case(case: str, args, tmp: Path) -> list[str]:
    model, inputs = load_sample(*CASES[case])
    calib = generated(inputs, args.calib, 1)
    evals = generated(inputs, args.eval, 2)
    contenders = {}
    t0 = time.perf_counter()
    contenders.update(cuvil_builds(model, inputs, calib))
    compile_s = time.perf_counter() - t0
    contenders["ort f32"] = ort_session(onnx_bytes(model, inputs))
    try:
        contenders["ort int8"] = ort_int8(model, inputs, calib, tmp)
    except Exception as e:  # noqa: BLE001 - reported in the table
        print(f"# {case}: ORT int8 failed: {type(e).__name__}: {e}")
    ao, how = torch_ao_int8(model, inputs, calib)
    contenders["torch.ao int8"] = ao
    ms = interleaved(contenders, inputs, args.repeat)
    base = ms["cuvil f32"][0]
    rows = []
    for name, fn in contenders.items():
        sqnr, agree = accuracy(fn, model, evals)
        med, iqr = ms[name]
        rows.append(
            f"| {case} | {name} | {med:.3f} | {iqr:.3f} | {med / base:.2f} | "
            f"{sqnr:.1f} | {agree:.1%} |"
        )
    print(f"# {case}: torch.ao = {how}; 4 Cuvil builds compiled in {compile_s:.1f} s")
    return rows


def gemm_rows(rounds: int) -> list[str]:
    from cuvil.codegen.cpu import resolve_isa
    from cuvil.codegen.gemm import plan_gemm
    from cuvil.codegen.qgemm import column_sums, pack_weight, padded, plan_qgemm
    from cuvil.codegen.qsimd import QEpilogue
    from cuvil.errors import CuvilError
    from cuvil.runtime.gemm_jit import compile_gemm
    from cuvil.runtime.qgemm_jit import compile_qgemm

    before = fma_peak_gflops()
    rows = []
    for m, n, k in GEMMS:
        calls = {}
        a, b = torch.randn(m, k), torch.randn(k, n)
        fplan = plan_gemm(m, n, k, b_packed=False)
        f32 = compile_gemm(fplan, b_packed=False)
        c = torch.zeros(m, n)
        calls["f32 cuvil"] = lambda f32=f32, c=c, a=a, b=b: f32(c, a, b)
        calls["f32 torch"] = lambda a=a, b=b: torch.mm(a, b)
        for mode in ("int8", "bf16"):
            for isa in ("amx", "avx512", "portable"):
                try:
                    resolve_isa(mode, isa)
                except CuvilError:
                    continue
                calls[f"{mode} {isa}"] = _qgemm_call(
                    m,
                    n,
                    k,
                    mode,
                    isa,
                    compile_qgemm,
                    plan_qgemm,
                    pack_weight,
                    column_sums,
                    padded,
                    QEpilogue,
                )
        times = {name: [] for name in calls}
        for _ in range(rounds):
            for name, fn in calls.items():
                times[name].append(thread_ms(fn, ()))
        for name, ts in times.items():
            gops = 2 * m * n * k / statistics.median(ts) / 1e6
            rows.append(f"| {m}x{n}x{k} | {name} | {gops:.0f} | {gops / before:.2f} |")
    after = fma_peak_gflops()
    return (
        [
            f"# float32 FMA peak (1 core, thread time): {before:.0f} GFLOP/s before "
            f"the GEMMs (the ratios' base), {after:.0f} after"
        ]
        + dot_peak_rows(before)
        + rows
    )


def dot_peak_rows(fma: float) -> list[str]:
    """The dot-product instructions' own ceilings, where this CPU has them."""
    from cuvil.codegen.cpu import resolve_isa
    from cuvil.errors import CuvilError

    out = []
    for kernel in _DOTS:
        try:
            resolve_isa(kernel.split()[0], "avx512")
        except CuvilError:
            continue
        peak = dot_peak_gops(kernel)
        out.append(
            f"# {_DOTS[kernel][0].split('.')[-2]} peak: {peak:.0f} GOP/s = "
            f"{peak / fma:.2f} x the float32 FMA peak (its GEMM's ceiling)"
        )
    return out


def _qgemm_call(
    m, n, k, mode, isa, compile_qgemm, plan_qgemm, pack, colsum, padded, Ep
):
    plan = plan_qgemm(m, n, k, isa, dtype=mode)
    if mode == "int8":
        a = torch.randint(0, 255, (plan.mp, plan.lda), dtype=torch.uint8)
        w = torch.randint(-127, 127, (n, k), dtype=torch.int8)
        corr = padded(colsum(w), plan.np_, torch.int32)
        mult = padded(torch.full((n,), 1e-3), plan.np_, torch.float32)
        ep, c = (
            Ep(out="u8", row_stride=n, inv=50.0),
            torch.zeros(m, n, dtype=torch.uint8),
        )
        kern, bp = compile_qgemm(plan, ep), pack(w, plan)
        return lambda: kern(c, a, bp, corr, mult)
    a = torch.randn(plan.mp, plan.lda // 2).bfloat16().view(torch.int16)
    w = torch.randn(n, k).bfloat16()
    ep = Ep(out="f32", corr=False, mult=False, row_stride=n)
    kern, bp, c = (
        compile_qgemm(plan, ep),
        pack(w, plan).view(torch.int16),
        torch.zeros(m, n),
    )
    return lambda: kern(c, a, bp)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--calib", type=int, default=8)
    ap.add_argument("--eval", type=int, default=4)
    ap.add_argument("--only", default="", help="cases: " + ", ".join(CASES))
    ap.add_argument("--no-gemm", action="store_true")
    ap.add_argument("--gemm-only", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(1)
    from cuvil.codegen.cpu import host_features, resolve_isa

    feats = sorted(
        f for f in host_features() if "amx" in f or "vnni" in f or "bf16" in f
    )
    print(
        f"# {platform.processor() or platform.machine()}, 1 thread, torch "
        f"{torch.__version__}, cuvil {cuvil.__version__}, int8 isa "
        f"{resolve_isa('int8')}, bf16 isa {resolve_isa('bf16')} ({', '.join(feats)})"
    )
    if not args.gemm_only:
        import tempfile

        print(
            "| model | contender | ms (median) | IQR ms | / cuvil f32 | SQNR dB "
            "| top-1 agree |"
        )
        print("|---|---|---|---|---|---|---|")
        cases = [c for c in CASES if not args.only or c in args.only.split(",")]
        with tempfile.TemporaryDirectory() as tmp:
            for case in cases:
                print("\n".join(run_case(case, args, Path(tmp))), flush=True)
    if not args.no_gemm:
        print(
            "\n| GEMM m x n x k | kernel | GOP/s | x f32 FMA peak |\n|---|---|---|---|"
        )
        print("\n".join(gemm_rows(max(5, args.repeat // 3))))


if __name__ == "__main__":
    sys.exit(main())
