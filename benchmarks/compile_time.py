"""Compile time: Cuvil's cold and warm compiles, its passes and LLVM's cost per kernel.

    python benchmarks/compile_time.py [--repeat 3] [--no-inductor] [--no-ort] [--markdown]

Every figure is CPU time (``time.process_time`` of the process: all its threads, plus
the CPU of any child process it waited for), not wall time: the machine is shared.
Each compile runs in a fresh Python process (bytecode cached in a private
``PYTHONPYCACHEPREFIX``, as an installed package has it; 1 torch thread); medians of
``--repeat`` processes, with the spread (min-max).

- **ResNet-18 cold**: an empty compile cache, in a process that has already captured
  the model once (torch's first-trace costs are paid: imports, first-call setup), so
  the figure is the compile itself: capture, passes, codegen, LLVM. Also **cold, fresh
  process** (the first trace included).
- **ResNet-18 warm, fresh process**: the cache the cold compile filled; the figure is
  the compile minus its capture ("beyond the first trace"), and the capture itself.
- **First trace**: where a fresh process's first capture goes: torch.export (its
  import, the trace), the functionalization (``run_decompositions``) and Cuvil's
  lowering, against the same capture again.
- **1000-op chain**: the O3 pass pipeline over an elementwise chain of 1000 ops with
  repeated scalar constants (and 250 / 4000 ops for the scaling).
- **LLVM per kernel**: LLVM O3 + code generation of stacks of Linear/LayerNorm/GELU
  blocks with 9 to 201 kernels, per kernel (min of 3), in one process.
- **Inductor** (``torch.compile``, cold: private cache dir, FX graph cache off,
  compile threads 1, its g++ runs counted) and **ONNX Runtime** session creation
  for the same ResNet-18, for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "models" / "resnet18.py"


# ---- children: one measurement each, one JSON line on stdout --------------------------
def _cpu() -> float:
    t = os.times()
    return time.process_time() + t.children_user + t.children_system


class _Stages:
    """CPU seconds of the compile's stages, by wrapping the driver's functions."""

    def __init__(self) -> None:
        from cuvil import pipeline

        self.seconds: dict[str, float] = {}
        for name, label in (
            ("capture", "capture"),
            ("run_passes", "passes"),
            ("generate", "codegen"),
            ("JitModule", "llvm"),
        ):
            self._wrap(pipeline, name, label)
        if hasattr(pipeline, "ircache"):  # (a tree before the IR level: none)
            self._wrap(pipeline.ircache, "lookup", "ir-lookup")

    def _wrap(self, owner, name: str, label: str) -> None:
        fn = getattr(owner, name)

        def timed(*args, **kwargs):
            start = _cpu()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[label] = self.seconds.get(label, 0.0) + _cpu() - start

        setattr(owner, name, timed)


def _resnet():
    import runpy

    ns = runpy.run_path(str(SAMPLE))
    return ns["Model"]().eval(), list(ns["example_inputs"]())


def child_cuvil(mode: str) -> dict:
    """`mode`: cold (after a first capture), fresh (cold, nothing before), warm."""
    import torch

    import cuvil
    from cuvil.frontend import capture

    torch.set_num_threads(1)
    model, inputs = _resnet()
    if mode == "cold":
        capture(model, inputs, "auto")  # the first trace, paid before the clock
    stages = _Stages()
    start = _cpu()
    compiled = cuvil.compile(model, inputs)
    total = _cpu() - start
    return {
        "total": total,
        "stages": stages.seconds,
        "ir_hit": getattr(compiled.jit, "ir_cache_hit", False),
        "object_hit": compiled.jit.cache_hit,
    }


def child_trace() -> dict:
    """The first and second capture of ResNet-18 in a fresh process, by part: the
    import of torch.export's tracer (torch._dynamo), export() and the
    functionalization (run_decompositions); the rest is Cuvil's lowering."""
    import torch

    import cuvil  # noqa: F401  (what `import cuvil` costs: child_imports)
    from cuvil.frontend import capture

    torch.set_num_threads(1)
    model, inputs = _resnet()
    start = _cpu()
    import torch.export._trace  # noqa: F401

    imported = _cpu() - start
    found: dict[str, float] = {}
    ep = torch.export.ExportedProgram
    original = (torch.export.export, ep.run_decompositions)
    torch.export.export = _timed(original[0], found, "torch.export")
    ep.run_decompositions = _timed(original[1], found, "run_decompositions")
    runs = []
    for _ in range(2):
        found.clear()
        start = _cpu()
        capture(model, inputs, "auto")
        runs.append({"total": _cpu() - start, **found})
    torch.export.export, ep.run_decompositions = original
    runs[0]["import"] = imported
    runs[0]["total"] += imported
    return {"first": runs[0], "second": runs[1]}


def _timed(fn, found: dict, key: str):
    def timed(*args, **kwargs):
        start = _cpu()
        try:
            return fn(*args, **kwargs)
        finally:
            found[key] = found.get(key, 0.0) + _cpu() - start

    return timed


def child_imports() -> dict:
    start = _cpu()
    import torch  # noqa: F401

    mid = _cpu()
    import cuvil  # noqa: F401

    return {"torch": mid - start, "cuvil": _cpu() - mid}


def child_inductor() -> dict:
    import torch

    torch.set_num_threads(1)
    model, inputs = _resnet()
    with torch.no_grad():
        model(*inputs)  # eager's own first call, not the compiler's
        start = _cpu()
        compiled = torch.compile(model, backend="inductor")
        compiled(*inputs)
        total = _cpu() - start
    return {"total": total}


def child_ort() -> dict:
    import io
    import warnings

    import onnxruntime as ort
    import torch

    model, inputs = _resnet()
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, tuple(inputs), buf, dynamo=False, opset_version=17)
    so = ort.SessionOptions()
    so.intra_op_num_threads, so.inter_op_num_threads = 1, 1
    times = []
    for _ in range(2):
        start = _cpu()
        ort.InferenceSession(buf.getvalue(), so, providers=["CPUExecutionProvider"])
        times.append(_cpu() - start)
    return {"first": times[0], "second": times[1]}


CHILDREN = {
    "cuvil": child_cuvil,
    "trace": child_trace,
    "imports": child_imports,
    "inductor": child_inductor,
    "ort": child_ort,
}


# ---- in-process measurements -----------------------------------------------------------
def chain_passes(sizes=(250, 1000, 4000), repeat: int = 3) -> dict[int, float]:
    import torch

    from cuvil.frontend import lower
    from cuvil.options import CompileOptions
    from cuvil.passes import run_passes

    class Chain(torch.nn.Module):
        def __init__(self, n: int) -> None:
            super().__init__()
            self.n = n

        def forward(self, x):
            for i in range(self.n):
                x = (
                    torch.sin(x)
                    if i % 3 == 0
                    else (x * 1.01 if i % 3 == 1 else x + 0.5)
                )
            return x

    out = {}
    for n in sizes:
        times = []
        for _ in range(repeat):
            module = lower(Chain(n), [torch.randn(64, 64)], "fx")
            start = time.process_time()
            run_passes(module, CompileOptions())
            times.append(time.process_time() - start)
        out[n] = statistics.median(times)
    return out


def llvm_per_kernel(blocks=(3, 8, 17, 33, 67), repeat: int = 3) -> dict[int, float]:
    """Kernels -> LLVM CPU seconds per kernel (min of `repeat`)."""
    import torch

    from cuvil.codegen.generator import generate
    from cuvil.codegen.target import optimize, target_machine
    from cuvil.frontend import lower
    from cuvil.options import CompileOptions
    from cuvil.passes import run_passes
    from cuvil.runtime.jit import _parse

    class Block(torch.nn.Module):
        def __init__(self, d: int) -> None:
            super().__init__()
            self.fc, self.ln = torch.nn.Linear(d, d), torch.nn.LayerNorm(d)

        def forward(self, x):
            return x + torch.nn.functional.gelu(self.ln(self.fc(x)))

    torch.manual_seed(0)
    programs = {}
    for n in blocks:
        model = torch.nn.Sequential(*(Block(64) for _ in range(n))).eval()
        module = run_passes(lower(model, [torch.randn(8, 64)], "fx"), CompileOptions())
        programs[n] = generate(module)
    best = dict.fromkeys(blocks, float("inf"))
    for _ in range(repeat):  # interleaved: load changes hit every size alike
        for n in blocks:
            mod = _parse(programs[n])
            start = time.process_time()
            optimize(mod, 3)
            target_machine(3).emit_object(mod)
            best[n] = min(best[n], time.process_time() - start)
    return {
        len(programs[n].kernels): best[n] / len(programs[n].kernels) for n in blocks
    }


# ---- the parent ------------------------------------------------------------------------
def _child(kind: str, *args: str, env_extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYCACHE, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", **(env_extra or {}))
    proc = subprocess.run(
        [sys.executable, __file__, "--child", kind, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"child {kind} {args} failed:\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1])


PYCACHE: dict[str, str] = {}


def _med(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s ({min(values):.2f}-{max(values):.2f})"


def _cuvil_rows(repeat: int) -> tuple[list[str], dict]:
    cold, fresh, warm = [], [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as cache:
            env = {"CUVIL_CACHE_DIR": cache, "CUVIL_CACHE": "1"}
            cold.append(_child("cuvil", "cold", env_extra=env))
            warm.append(_child("cuvil", "warm", env_extra=env))
        with tempfile.TemporaryDirectory() as cache:
            env = {"CUVIL_CACHE_DIR": cache, "CUVIL_CACHE": "1"}
            fresh.append(_child("cuvil", "fresh", env_extra=env))
    assert all(w["object_hit"] for w in warm), warm
    beyond = [w["total"] - w["stages"]["capture"] for w in warm]
    stages = {
        k: statistics.median(c["stages"].get(k, 0.0) for c in cold)
        for k in ("capture", "passes", "codegen", "llvm")
    }
    warm_stages = {
        k: statistics.median(w["stages"].get(k, 0.0) for w in warm)
        for k in ("capture", "passes", "ir-lookup", "codegen", "llvm")
    }
    rows = [
        f"| ResNet-18 cold (after a first trace) | {_med([c['total'] for c in cold])} | "
        + ", ".join(f"{k} {v:.2f}" for k, v in stages.items())
        + " |",
        f"| ResNet-18 cold, fresh process | {_med([c['total'] for c in fresh])} | "
        "the first trace included |",
        f"| ResNet-18 warm, fresh process, beyond the first trace | {_med(beyond)} | "
        + ", ".join(f"{k} {v:.2f}" for k, v in warm_stages.items() if k != "capture")
        + f" (capture {warm_stages['capture']:.2f} on top) |",
    ]
    return rows, {"cold": cold, "fresh": fresh, "warm": warm}


def _trace_rows(repeat: int) -> list[str]:
    runs = [_child("trace") for _ in range(repeat)]
    imports = [_child("imports") for _ in range(repeat)]
    first, second = [r["first"] for r in runs], [r["second"] for r in runs]

    def part(rs, key):
        return statistics.median(r.get(key, 0.0) for r in rs)

    parts = ("import", "torch.export", "run_decompositions")
    rest1 = part(first, "total") - sum(part(first, k) for k in parts)
    rest2 = part(second, "total") - sum(part(second, k) for k in parts[1:])
    return [
        f"| import torch / import cuvil | {statistics.median(i['torch'] for i in imports):.2f}"
        f" s / {statistics.median(i['cuvil'] for i in imports):.2f} s | fresh process |",
        f"| first capture (auto: torch.export) | {_med([r['total'] for r in first])} | "
        f"import of torch.export's tracer (torch._dynamo) "
        f"{part(first, parts[0]):.2f}, export() {part(first, parts[1]):.2f}, "
        f"run_decompositions {part(first, parts[2]):.2f}, Cuvil's lowering {rest1:.2f} |",
        f"| second capture | {_med([r['total'] for r in second])} | "
        f"export() {part(second, parts[1]):.2f}, run_decompositions "
        f"{part(second, parts[2]):.2f}, Cuvil's lowering {rest2:.2f} |",
    ]


def _inductor_env(cache: str) -> dict[str, str]:
    """Inductor cold: its caches in a fresh folder and off, its C++ compiles in the
    process (their g++ children are waited for, so their CPU is counted)."""
    return {
        "TORCHINDUCTOR_CACHE_DIR": cache,
        "TRITON_CACHE_DIR": cache,
        "TORCHINDUCTOR_FX_GRAPH_CACHE": "0",
        "TORCHINDUCTOR_AUTOGRAD_CACHE": "0",
        "TORCHINDUCTOR_COMPILE_THREADS": "1",
    }


def _machine() -> str:
    from cuvil.codegen.target import host_cpu

    cpu = next(
        (
            ln.split(":", 1)[1].strip()
            for ln in Path("/proc/cpuinfo").read_text().splitlines()
            if ln.startswith("model name")
        ),
        platform.processor(),
    )
    load = os.getloadavg()[0]
    return (
        f"{os.cpu_count()} vCPUs of {cpu} (LLVM host CPU `{host_cpu()[0]}`), "
        f"Python {platform.python_version()}, load average {load:.1f} at the start"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-inductor", action="store_true")
    parser.add_argument("--no-ort", action="store_true")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument(
        "--chain",
        default="250,1000,4000",
        help="chain lengths for the pass figure (the 1000-op one is the acceptance's)",
    )
    parser.add_argument("--json", help="also write every measurement to this file")
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(CHILDREN[args.child[0]](*args.child[1:])))
        return
    with tempfile.TemporaryDirectory() as pyc:
        PYCACHE["PYTHONPYCACHEPREFIX"] = pyc
        _child("imports")  # writes the bytecode the measured children read
        _report(args)


def _report(args) -> None:
    print(f"Machine: {_machine()}\n")
    print("| figure | CPU | where it goes |\n|---|---|---|")
    rows, raw = _cuvil_rows(args.repeat)
    print("\n".join(rows), flush=True)
    print("\n".join(_trace_rows(args.repeat)), flush=True)
    chain = chain_passes(tuple(int(n) for n in args.chain.split(",")))
    print(
        f"| 1000-op chain, passes | {chain.get(1000, float('nan')) * 1e3:.0f} ms | "
        + ", ".join(f"{n} ops {s * 1e3:.0f} ms" for n, s in chain.items())
        + " |",
        flush=True,
    )
    per = llvm_per_kernel()
    spread = max(per.values()) / min(per.values())
    print(
        "| LLVM per kernel | "
        + ", ".join(f"{k}: {s * 1e3:.1f} ms" for k, s in per.items())
        + f" | max/min {spread:.2f} |",
        flush=True,
    )
    if not args.no_inductor:
        ind = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as cache:
                ind.append(_child("inductor", env_extra=_inductor_env(cache)))
        cold = statistics.median(c["total"] for c in raw["fresh"])
        med = statistics.median(i["total"] for i in ind)
        print(
            f"| Inductor ResNet-18 cold, fresh process | {_med([i['total'] for i in ind])}"
            f" | {med / cold:.1f}x Cuvil's cold fresh-process compile |",
            flush=True,
        )
    if not args.no_ort:
        ort = [_child("ort") for _ in range(args.repeat)]
        print(
            f"| ORT session creation, ResNet-18 | {_med([o['first'] for o in ort])} | "
            f"second session {_med([o['second'] for o in ort])} |",
            flush=True,
        )
    print(f"\nLoad average at the end: {os.getloadavg()[0]:.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(raw, indent=1))


if __name__ == "__main__":
    main()
