"""The autotuner: measure the planners' candidate plans on this host and keep the best.

``tune_conv(cs)`` / ``tune_gemm(m, n, k, layout)`` compile each candidate (the cache
model's plan first; codegen/conv_plan.py, gemm_plan.py) as a lone kernel
(gemm_jit.py), time them interleaved on one thread with thread CPU time (the minimum of
several rounds, so other processes on a shared machine count as little as they can),
each sample after other data has pushed the kernel's operands out of L2 (``evictor``:
as between the layers of a model, not back to back),
check the winner's numbers against the model's plan, and record it in this host's plan
table (codegen/tuned.py), where every later compile finds it. ``tune_module`` does that
for each distinct convolution and GEMM of a lowered module; ``cuvil.compile(...,
options={"tune": True})`` runs it before code generation, ``cuvil-debug tune MODEL``
at build time.

A plan is only a speed choice: every candidate computes the same result (checked), so a
measurement under load can cost speed, never correctness.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import torch

from ..codegen import tuned
from ..codegen.conv_plan import (
    ConvPlan,
    conv_candidates,
    conv_key,
    conv_params,
    conv_supported,
    pack_conv_weight,
)
from ..codegen.gemm_plan import (
    GemmPlan,
    gemm_candidates,
    gemm_key,
    gemm_params,
    pack_a,
    pack_b,
)
from ..codegen.host import HostInfo, host_info
from ..codegen.im2col import ConvShape, conv_shape
from ..ir import ops
from ..ir.ops.fused import body_of
from ..ir.types import DType
from .gemm_jit import compile_conv, compile_gemm

__all__ = [
    "Tuned",
    "tune_conv",
    "tune_gemm",
    "tune_module",
    "module_shapes",
    "measure",
    "evictor",
]

BUDGET_S = 0.002  # thread CPU time per timing sample


@dataclass(frozen=True)
class Tuned:
    kind: str
    key: str
    plan: object
    gflops: float  # the winner's
    model_gflops: float  # the cache model's plan
    candidates: int


def measure(
    calls: list[Callable[[], None]],
    rounds: int,
    evict: Callable[[], None] | None = None,
) -> list[float]:
    """Best seconds per call of each function, interleaved over `rounds` rounds; with
    `evict`, run before every sample (outside the timing), each sample starts from
    the cache state a kernel meets inside a model (``evictor``)."""
    reps = []
    for fn in calls:
        fn()  # warm: caches, first-touch pages
        t0 = time.thread_time()
        fn()
        reps.append(max(1, int(BUDGET_S / max(time.thread_time() - t0, 1e-6))))
    best = [float("inf")] * len(calls)
    for _ in range(rounds):
        for i, fn in enumerate(calls):
            if evict is not None:
                evict()
            t0 = time.thread_time()
            for _ in range(reps[i]):
                fn()
            best[i] = min(best[i], (time.thread_time() - t0) / reps[i])
    return best


def evictor(host: HostInfo | None = None) -> Callable[[], None]:
    """Writes 4 L2s (at least 8 MiB) of other data: inside a model the layers between
    two calls of a kernel leave none of its weights in L2, so timing candidates back
    to back favours the plans that lean on a warm L2 (docs/CONV.md: ResNet-18's layer3
    measured 3% slower with the next panel's prefetch back to back, 10% faster between
    other kernels). Kernels of a sample after the first run warm, as in a loop."""
    host = host or host_info()
    junk = torch.empty(max(4 * host.l2, 8 << 20) // 4)
    return lambda: junk.add_(1.0)


def _pick(kind, key, plans, calls, flops, outputs, rounds, record) -> Tuned:
    times = measure(calls, rounds, evictor())
    first = outputs[0]()
    for plan, out in zip(plans[1:], outputs[1:], strict=True):
        got = out()
        if not torch.allclose(
            got, first, rtol=1e-4, atol=1e-4 * first.abs().max().item()
        ):
            raise AssertionError(f"plan {plan} computes other numbers than {plans[0]}")
    best = min(range(len(plans)), key=lambda i: times[i])
    result = Tuned(
        kind,
        key,
        plans[best],
        flops / times[best] / 1e9,
        flops / times[0] / 1e9,
        len(plans),
    )
    if record:
        params = (
            conv_params(plans[best]) if kind == "conv" else gemm_params(plans[best])
        )
        tuned.record(kind, key, {**params, "gflops": round(result.gflops, 1)})
    return result


def tune_conv(cs: ConvShape, rounds: int = 5, record: bool = True) -> Tuned:
    """Measure the conv candidates of `cs` (bias, no epilogue) and keep the fastest."""
    plans: list[ConvPlan] = conv_candidates(cs)
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(cs.n, *cs.ins, cs.cg, generator=gen)
    w = torch.randn(cs.og, cs.cg, *cs.kernel, generator=gen) / cs.k**0.5
    bias = torch.randn(cs.og, generator=gen)
    calls, outputs = [], []
    for plan in plans:
        kernel = compile_conv(plan, bias=True)
        packed, out = pack_conv_weight(w, plan), torch.empty(cs.n, *cs.outs, cs.og)
        calls.append(lambda k=kernel, p=packed, o=out: k(o, x, p, bias))
        outputs.append(lambda c=calls[-1], o=out: (c(), o.clone())[1])
    return _pick(
        "conv", conv_key(cs), plans, calls, plans[0].flops, outputs, rounds, record
    )


def tune_gemm(
    m: int,
    n: int,
    k: int,
    layout: str = "packed-b",
    rounds: int = 5,
    record: bool = True,
) -> Tuned:
    """Measure the GEMM candidates of one shape/layout and keep the fastest."""
    plans: list[GemmPlan] = gemm_candidates(m, n, k, layout)
    gen = torch.Generator().manual_seed(0)
    a, b = torch.randn(m, k, generator=gen), torch.randn(k, n, generator=gen)
    calls, outputs = [], []
    for plan in plans:
        options = {"b_packed": layout == "packed-b", "a_packed": layout == "packed-a"}
        ka = pack_a(a, plan) if layout == "packed-a" else a
        kb = pack_b(b, plan) if layout == "packed-b" else b
        if layout == "trans-b":
            kb, options["trans_b"] = b.t().contiguous(), True
        kernel, c = compile_gemm(plan, **options), torch.empty(m, n)
        calls.append(lambda f=kernel, c=c, ka=ka, kb=kb: f(c, ka, kb))
        outputs.append(lambda f=calls[-1], c=c: (f(), c.clone())[1])
    flops = 2 * m * n * k
    return _pick(
        "gemm", gemm_key(m, n, k, layout), plans, calls, flops, outputs, rounds, record
    )


def module_shapes(module) -> list[tuple]:
    """The distinct ("conv", ConvShape) and ("gemm", m, n, k, layout) jobs of a lowered
    module's main function (fused contraction bodies included), in op order."""
    jobs: dict[tuple, None] = {}
    for op in module.main.ops:
        body = body_of(module, op) if isinstance(op, ops.FusedOp) else None
        first = body.ops[0] if body is not None and body.ops else op
        job = _job(first)
        if job is not None:
            jobs[job] = None
    return list(jobs)


def _job(op) -> tuple | None:
    types = [v.type for v in op.operands]
    if any(t.dtype is not DType.f32 for t in types) or not op.results:
        return None
    out = op.results[0].type
    if isinstance(op, ops.ConvOp) and len(types[0].shape) == 4:
        cs = conv_shape(op.attrs, types[0], types[1], out)
        if out.layout == "nhwc" and conv_supported(cs):
            return ("conv", cs)
        return ("gemm", cs.og, cs.spatial_out, cs.k, "packed-a")
    if isinstance(op, ops.LinearOp):
        k = types[1].shape[1]
        return (
            "gemm",
            out.numel() // types[1].shape[0],
            types[1].shape[0],
            k,
            "packed-b",
        )
    if isinstance(op, ops.MatmulOp) and types[1].rank >= 2:
        m, k, n = types[0].shape[-2], types[0].shape[-1], types[1].shape[-1]
        constant = isinstance(op.operands[1].owner, (ops.ParamOp, ops.ConstantOp))
        layout = "packed-b" if constant and types[1].rank == 2 else "plain-b"
        return ("gemm", m, n, k, layout)
    return None


def tune_module(module, rounds: int = 5, progress=None) -> list[Tuned]:
    """Tune every convolution and GEMM shape of `module` and record the winners."""
    results = []
    for job in module_shapes(module):
        if job[0] == "conv":
            result = tune_conv(job[1], rounds)
        else:
            result = tune_gemm(*job[1:], rounds=rounds)
        results.append(result)
        if progress is not None:
            progress(result)
    return results
