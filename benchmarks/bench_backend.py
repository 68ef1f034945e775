"""``torch.compile(model, backend="cuvil")`` against ``cuvil.compile`` on the same model.

    python benchmarks/bench_backend.py [--repeat 200] [--only gpt2,resnet18] [--batch 2]
        [--no-mask] [--no-samples]

The models: the 21 Hugging Face architectures of tests/zoo/models.py (tiny random
configs; text models with a padding attention_mask) and two torchvision classifiers
(ResNet-18, AlexNet; 64x64 images): 23 architectures; then the four models of
samples/models at batch 1 (ResNet-18 at 224x224, the transformer block at sequence
128: sizes where compute, not per-call overhead, dominates). Per model, in one process:

- the backend's output against eager (float32: rtol 1e-4, atol 1e-5), whether Cuvil code
  ran (``cuvil.backend.report()``: Cuvil runs, and "cuvil" = the graph compiled whole,
  "split" = some ops ran eagerly) - under ``torch.no_grad()``, with no CUVIL_FALLBACK;
- latency, 1 thread, thread-CPU time per call, all contenders interleaved (A B C D A B
  C D ...), medians: the backend, ``cuvil.compile`` (frontend auto), eager, and the
  *dynamo floor*: torch.compile with a backend that returns precomputed outputs (what
  dynamo's guards, its bytecode and the model's Python outside the graph cost; no
  backend goes below it). ``b/c`` is backend / cuvil.compile; ``runner/c`` is the time a
  backend call spends in the backend's runners (its own code and the Cuvil code they
  call, not dynamo's) over cuvil.compile's: what the backend costs on top of Cuvil.
  Eager is timed after the others (context; its working set would evict theirs).

Timings on a shared machine are noisy: compare the ratios of one run. Also runs against
an older tree of Cuvil (``report()`` missing: "n/a").
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "zoo"))

from models import SPECS, TORCHVISION, case  # noqa: E402

import cuvil  # noqa: E402
import cuvil.backend  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5
VISION = ("resnet18", "alexnet")
# the samples at batch 1: models where compute, not per-call overhead, dominates
SAMPLES = ("mlp", "small_cnn", "resnet18", "transformer_block")


def floor_backend(gm, example_inputs):
    """Dynamo's own cost: the graph's outputs computed once, returned every call."""
    outputs = gm(*example_inputs)
    return lambda *args: outputs


def _report():
    report = getattr(cuvil.backend, "report", None)
    return report() if report is not None else None


class RunnerClock:
    """Thread-CPU time spent inside the backend's graph runners (its own code and the
    Cuvil code it calls, not dynamo's), per backend call; absent in an older tree."""

    def __init__(self) -> None:
        self.spent, self.depth, self.cls = 0.0, 0, None
        try:
            from cuvil.backend.runner import GraphRunner
        except ImportError:
            return
        self.cls, self.real = GraphRunner, GraphRunner.__call__
        clock = self

        def timed(runner, *args):
            clock.depth += 1
            t0 = time.thread_time()
            try:
                return clock.real(runner, *args)
            finally:
                clock.depth -= 1
                if clock.depth == 0:
                    clock.spent += time.thread_time() - t0

        GraphRunner.__call__ = timed

    def take(self) -> float:
        spent, self.spent = self.spent, 0.0
        return spent

    def close(self) -> None:
        if self.cls is not None:
            self.cls.__call__ = self.real


def measure(contenders: dict, xs: list, repeat: int) -> dict[str, tuple[float, float]]:
    """name -> (median ms, interquartile range ms) of thread-CPU time per call; "runner":
    the part of each backend call spent in the runners. Eager runs after the others (it
    is context, and its big working set would evict theirs)."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    times["runner"] = []
    clock = RunnerClock()
    eager = contenders.pop("eager")
    try:
        with torch.no_grad():
            for fn in contenders.values():
                for _ in range(3):
                    fn(*xs)
            for _ in range(repeat):
                for name, fn in contenders.items():
                    clock.take()
                    t0 = time.thread_time()
                    fn(*xs)
                    times[name].append(time.thread_time() - t0)
                    if name == "backend":
                        times["runner"].append(clock.take())
            for _ in range(max(repeat // 4, 5)):
                t0 = time.thread_time()
                eager(*xs)
                times.setdefault("eager", []).append(time.thread_time() - t0)
    finally:
        clock.close()
    out = {}
    for name, ts in times.items():
        q = statistics.quantiles(ts, n=4)
        out[name] = (statistics.median(ts) * 1e3, (q[2] - q[0]) * 1e3)
    return out


def sample(name: str, batch: int):
    """A model of samples/models with its example inputs repeated to `batch`."""
    spec = importlib.util.spec_from_file_location(
        f"bench_{name}", ROOT / "samples" / "models" / f"{name}.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    xs = [x.repeat(batch, *([1] * (x.dim() - 1))) for x in mod.example_inputs()]
    return mod.Model().eval(), xs


def run_model(name: str, model, xs: list, repeat: int) -> dict:
    row = {"model": name}
    with torch.no_grad():
        want = model(*xs)
    torch._dynamo.reset()
    if hasattr(cuvil.backend, "reset"):
        cuvil.backend.reset()
    backend = torch.compile(model, backend="cuvil")
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = backend(*xs)
        except Exception as e:  # the old backend raised on unsupported ops
            row["error"] = f"{type(e).__name__}: {str(e).strip().splitlines()[0][:90]}"
            return row
    row["err"] = (got - want).abs().max().item()
    row["ok"] = bool(torch.allclose(got, want, rtol=RTOL, atol=ATOL))
    rep = _report()
    if rep is not None:
        kinds = {b.kind for g in rep.graphs for b in g.builds}
        row["kind"] = "+".join(sorted(kinds))
        row["cuvil_runs"] = rep.cuvil_runs
    direct = cuvil.compile(model, xs, options={"frontend": "auto"})
    floor = torch.compile(model, backend=floor_backend)
    contenders = {"backend": backend, "cuvil": direct, "floor": floor, "eager": model}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row.update({k: v for k, v in measure(contenders, xs, repeat).items()})
    return row


def fmt(row: dict) -> str:
    if "error" in row:
        return f"| {row['model']} | **fails**: {row['error']} |" + " |" * 8
    b, c, f, e, r = (
        row[k][0] for k in ("backend", "cuvil", "floor", "eager", "runner")
    )
    ok = "yes" if row["ok"] else "**no**"
    runs = row.get("cuvil_runs", "n/a")
    own = f"{r / c:.2f}" if r else "n/a"
    return (
        f"| {row['model']} | {ok} | {row['err']:.1e} | {row.get('kind', 'n/a')} "
        f"({runs}) | {b:.3f} ±{row['backend'][1]:.3f} | {c:.3f} ±{row['cuvil'][1]:.3f} "
        f"| **{b / c:.2f}** | {f:.3f} | {own} | {e:.3f} |"
    )


HEADER = (
    "| model | matches | max err | Cuvil ran (runs) | backend ms (IQR) | cuvil.compile ms "
    "(IQR) | b/c | dynamo floor ms | runner/c | eager ms |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--no-mask", action="store_true", help="text models without a mask")
    ap.add_argument("--no-samples", action="store_true", help="the zoo only")
    args = ap.parse_args()
    torch.set_num_threads(1)
    specs = SPECS + [s for s in TORCHVISION if s.name in VISION]
    only = set(args.only.split(",")) if args.only else None
    cases = [
        (
            s.name,
            lambda s=s: case(s, mask=s.masked and not args.no_mask, batch=args.batch),
        )
        for s in specs
    ] + [
        (f"sample:{n}", lambda n=n: sample(n, 1))
        for n in SAMPLES
        if not args.no_samples
    ]
    print(
        f"# {platform.machine()}, {os.cpu_count()} CPUs, 1 thread, torch "
        f"{torch.__version__}, cuvil {cuvil.__version__} ({Path(cuvil.__file__).parent}), "
        f"batch {args.batch}, median of {args.repeat} (thread-CPU time)"
    )
    print(HEADER)
    rows = []
    for name, build in cases:
        if only and name not in only and name.split(":")[-1] not in only:
            continue
        row = run_model(name, *build(), args.repeat)
        rows.append(row)
        print(fmt(row), flush=True)
    done = [r for r in rows if "error" not in r]
    ratios = [r["backend"][0] / r["cuvil"][0] for r in done]
    print(
        f"\n{sum(r['ok'] for r in done)}/{len(rows)} match eager; "
        + (
            f"b/c median {statistics.median(ratios):.2f}, "
            f"max {max(ratios):.2f}; within 1.2x: {sum(x <= 1.2 for x in ratios)}"
            if ratios
            else ""
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
