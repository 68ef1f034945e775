"""Benchmark cuvil's generated GEMM against torch.mm, 1 thread, interleaved, medians.

Usage: .venv/bin/python benchmarks/bench_gemm.py [--rounds 15] [--quick]

Each row compiles one kernel with plan_gemm's tile, then alternates cuvil and
torch (A B A B ...) for ``rounds`` rounds of enough calls to last ~2 ms each
(thread CPU time), and reports the medians of the faster half of the rounds (a
shared machine's interruptions land in the slower half). "peak %" is against a measured FMA roofline: a JIT'd
loop of 24 independent zmm FMA chains on this core.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass

import llvmlite.binding as llvm
import llvmlite.ir as ir
import torch

from cuvil.codegen.gemm import pack_a, pack_b, plan_gemm
from cuvil.runtime.gemm_jit import compile_gemm


@dataclass(frozen=True)
class Case:
    label: str
    m: int
    n: int
    k: int
    layout: str = "packed-b"  # packed-b | plain-b | trans-b | packed-a


CASES = [
    Case("square", 512, 512, 512),
    Case("mlp b1 fc1", 1, 512, 784),
    Case("mlp b1 fc2", 1, 256, 512),
    Case("mlp b8 fc2", 8, 256, 512),
    Case("xfmr qkv-ish", 128, 256, 256),
    Case("xfmr ffn up", 128, 1024, 256),
    Case("xfmr ffn down", 128, 256, 1024),
    Case("attn q@k^T", 128, 128, 64, "trans-b"),
    Case("attn p@v", 128, 64, 128, "plain-b"),
    Case("r18 conv1", 64, 12544, 147, "packed-a"),
    Case("r18 layer1", 64, 3136, 576, "packed-a"),
    Case("r18 layer2", 128, 784, 1152, "packed-a"),
    Case("r18 layer3", 256, 196, 2304, "packed-a"),
    Case("r18 layer4", 512, 49, 4608, "packed-a"),
]


def time_call(fn, reps: int) -> float:
    """Thread CPU seconds per call (time on other processes' behalf does not count)."""
    start = time.thread_time()
    for _ in range(reps):
        fn()
    return (time.thread_time() - start) / reps


def operands(case: Case):
    torch.manual_seed(0)
    a, b = torch.randn(case.m, case.k), torch.randn(case.k, case.n)
    plan = plan_gemm(case.m, case.n, case.k, b_packed=case.layout == "packed-b")
    options = {"b_packed": case.layout == "packed-b"}
    kernel_a, kernel_b = a, b
    if case.layout == "packed-b":
        kernel_b = pack_b(b, plan)
    elif case.layout == "trans-b":
        kernel_b, options["trans_b"] = b.t().contiguous(), True
    elif case.layout == "packed-a":
        kernel_a, options["a_packed"] = pack_a(a, plan), True
    return plan, options, a, b, kernel_a, kernel_b


def measure(case: Case, rounds: int) -> tuple[float, float, str]:
    plan, options, a, b, ka, kb = operands(case)
    kernel = compile_gemm(plan, **options)
    c, c_ref = torch.empty(case.m, case.n), torch.empty(case.m, case.n)
    raw, ptrs = kernel.raw(), (c.data_ptr(), ka.data_ptr(), kb.data_ptr(), None, None)
    b_torch = b.t().contiguous().t() if case.layout == "trans-b" else b

    def cuvil() -> None:
        raw(*ptrs)

    def reference() -> None:
        torch.mm(a, b_torch, out=c_ref)

    cuvil(), reference()
    assert torch.allclose(c, c_ref, rtol=1e-3, atol=1e-3 * case.k**0.5), case
    reps = max(1, int(2e-3 / max(time_call(reference, 3), 1e-7)))
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(time_call(cuvil, reps))
        theirs.append(time_call(reference, reps))
    ours, theirs = (
        sorted(ours)[: max(1, rounds // 2)],
        sorted(theirs)[: max(1, rounds // 2)],
    )
    tile = f"{plan.mr}x{plan.nr} kc{plan.k_blocks[1]}"
    return statistics.median(ours), statistics.median(theirs), tile


def fma_peak_gflops() -> float:
    """GFLOP/s of 24 independent <16 x float> FMA chains (no memory traffic)."""
    vec = ir.VectorType(ir.FloatType(), 16)
    module = ir.Module(name="peak")
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ir.IntType(64)]), "peak")
    fma = ir.Function(module, ir.FunctionType(vec, [vec] * 3), "llvm.fma.v16f32")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    entry, body, end = b.block, fn.append_basic_block("body"), fn.append_basic_block()
    b.branch(body)
    b.position_at_end(body)
    iv = b.phi(ir.IntType(64))
    accs = [b.phi(vec) for _ in range(24)]
    x = ir.Constant(vec, [1.0000001] * 16)
    new = [b.call(fma, [acc, x, x]) for acc in accs]
    nxt = b.add(iv, ir.Constant(ir.IntType(64), 1))
    b.cbranch(b.icmp_unsigned("<", nxt, fn.args[0]), body, end)
    iv.add_incoming(ir.Constant(ir.IntType(64), 0), entry)
    iv.add_incoming(nxt, body)
    for phi, out in zip(accs, new, strict=True):
        phi.add_incoming(ir.Constant(vec, [0.0] * 16), entry)
        phi.add_incoming(out, body)
    b.position_at_end(end)
    sink = ir.GlobalVariable(module, vec, "sink")
    sink.initializer = ir.Constant(vec, None)
    total = new[0]
    for v in new[1:]:
        total = b.fadd(total, v)
    b.store(total, sink, align=64)
    b.ret_void()
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    tm = llvm.Target.from_default_triple().create_target_machine(
        cpu=llvm.get_host_cpu_name(),
        features=llvm.get_host_cpu_features().flatten(),
        opt=3,
        jit=True,
    )
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(str(module)), tm)
    engine.finalize_object()
    import ctypes

    run = ctypes.CFUNCTYPE(None, ctypes.c_int64)(engine.get_function_address("peak"))
    iters = 2_000_000
    best = min(time_call(lambda: run(iters), 1) for _ in range(7))
    return 24 * 16 * 2 * iters / best / 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="5 rounds")
    args = parser.parse_args()
    torch.set_num_threads(1)
    rounds = 5 if args.quick else args.rounds
    peak = fma_peak_gflops()  # measured again at the end: the machine is shared
    rows = []
    header = f"{'shape':<16}{'M':>5}{'N':>7}{'K':>6} {'layout':<9}{'tile':<13}"
    for case in CASES:
        rows.append((case, *measure(case, rounds)))
    peak = max(peak, fma_peak_gflops())
    print(f"cpu {llvm.get_host_cpu_name()}, 1 thread, FMA roofline {peak:.0f} GFLOP/s")
    print(header + f"{'cuvil':>8}{'torch':>8}{'ratio':>7}{'peak%':>7}")
    for case, ours, theirs, tile in rows:
        flop = 2 * case.m * case.n * case.k
        g_ours, g_theirs = flop / ours / 1e9, flop / theirs / 1e9
        print(
            f"{case.label:<16}{case.m:>5}{case.n:>7}{case.k:>6} {case.layout:<9}"
            f"{tile:<13}{g_ours:>8.1f}{g_theirs:>8.1f}{theirs / ours:>7.2f}"
            f"{100 * g_ours / peak:>6.0f}%"
        )


if __name__ == "__main__":
    main()
