"""Where one ``torch.compile(model, backend="cuvil")`` call's time goes, against
``cuvil.compile`` on the same model.

    python benchmarks/backend_breakdown.py [--models llama,bert,resnet] [--batch 2]
        [--repeat 300] [--inductor]

Per model (tests/zoo/models.py, tiny random configs, text models with a padding mask),
1 thread, thread-CPU time per call, medians of `--repeat` rounds; in each round the
contenders run one after another in the order printed (A B C ... A B C ...):

- ``empty fn``: torch.compile of ``x + 1`` with a backend returning a precomputed
  output: dynamo's fixed cost per call (frame evaluation, one tensor's guards);
- ``dynamo floor``: the model through torch.compile with that backend: dynamo's guards
  over the model (its modules, configs, weights), its bytecode, the model's Python
  around the graph: what every backend pays, Inductor included;
- ``backend``: the model through ``backend="cuvil"``;
- ``runner after floor``: the backend's graph runner called alone with the arguments
  dynamo gives it, right after a floor call (its caches as cold as in a real call);
- ``cuvil.compile``: the direct path, right after the runner;
- ``runner warm`` / ``plan warm`` / ``guard``: the runner, its compiled plan without
  the weight guard, and the guard alone, each right after the one before (warm caches):
  runner - plan is the backend's own per-call code, guard the part of it that checks
  the frozen weights;
- ``inductor`` (``--inductor``): torch.compile's default backend, for scale.

``--skip-guards`` measures the floor, the backend and cuvil.compile again under
``torch.compiler.set_stance(skip_guard_eval_unsafe=True)`` (dynamo skips its guards
once a frame has a compiled entry; the backend's weight guard and Cuvil's input checks
still run, so a changed weight still rebuilds).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "zoo"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_backend import floor_backend  # noqa: E402
from models import SPECS, TORCHVISION, case  # noqa: E402

import cuvil  # noqa: E402
import cuvil.backend  # noqa: E402
from cuvil.backend.runner import GraphRunner  # noqa: E402


def capture_runner(compiled, xs):
    """(runner, the arguments dynamo passes it) of a model whose graph is one runner."""
    seen = []
    real = GraphRunner.__call__

    def spy(runner, *args):
        seen.append((runner, args))
        return real(runner, *args)

    GraphRunner.__call__ = spy
    try:
        compiled(*xs)
    finally:
        GraphRunner.__call__ = real
    if len(seen) != 1:
        return None, None
    return seen[0]


def contenders(model, xs, inductor: bool) -> dict:
    x = torch.randn(2, 8)
    empty = torch.compile(lambda t: t + 1, backend=floor_backend)
    floor = torch.compile(model, backend=floor_backend)
    backend = torch.compile(model, backend="cuvil")
    direct = cuvil.compile(model, xs, options={"frontend": "auto"})
    for f in (floor, backend):
        f(*xs)
    empty(x)
    runner, args = capture_runner(backend, xs)
    out = {
        "empty fn": lambda: empty(x),
        "dynamo floor": lambda: floor(*xs),
        "backend": lambda: backend(*xs),
    }
    if runner is not None and runner.plan is not None:
        runtime = runner.pick(args)
        guard = runner.guard
        out.update(
            {
                "(floor)": lambda: floor(*xs),
                "runner after floor": lambda: runner(*args),
                "cuvil.compile": lambda: direct(*xs),
                "runner warm": lambda: runner(*args),
                "plan warm": lambda: runner.plan(*runtime),
                "guard": (lambda: guard.holds(args)) if guard else (lambda: None),
            }
        )
    else:  # a split graph or several graphs: the whole calls only
        out["cuvil.compile"] = lambda: direct(*xs)
    if inductor:
        compiled = torch.compile(model)
        compiled(*xs)
        out["inductor"] = lambda: compiled(*xs)
    return out


def measure(fns: dict, repeat: int) -> dict[str, float]:
    times: dict[str, list[int]] = {k: [] for k in fns}
    for _ in range(5):
        for f in fns.values():
            f()
    for _ in range(repeat):
        for k, f in fns.items():
            t0 = time.thread_time_ns()
            f()
            times[k].append(time.thread_time_ns() - t0)
    return {k: statistics.median(v) / 1e3 for k, v in times.items() if k[0] != "("}


def _line(got: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:.1f}" for k, v in got.items())


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--models", default="llama,bert,resnet")
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=300)
    ap.add_argument("--inductor", action="store_true")
    ap.add_argument("--skip-guards", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    specs = {s.name: s for s in SPECS + TORCHVISION}
    print(f"# batch {args.batch}, 1 thread, median us of {args.repeat} (thread-CPU)")
    for name in args.models.split(","):
        spec = specs[name]
        model, xs = case(spec, mask=spec.masked, batch=args.batch)
        torch._dynamo.reset()
        with torch.no_grad():
            fns = contenders(model, xs, args.inductor)
            got = measure(fns, args.repeat)
            if args.skip_guards:
                with torch.compiler.set_stance(skip_guard_eval_unsafe=True):
                    keep = ("dynamo floor", "backend", "cuvil.compile")
                    skipped = measure({k: fns[k] for k in keep}, args.repeat)
        print(f"{name}: " + _line(got))
        if args.skip_guards:
            print("  skip_guard_eval_unsafe: " + _line(skipped))
        if "plan warm" in got:
            own = got["runner warm"] - got["plan warm"]
            cold = got["runner after floor"] - got["runner warm"]
            print(
                f"  backend - floor {got['backend'] - got['dynamo floor']:.1f}; "
                f"backend's own code {own:.1f} (guard {got['guard']:.1f}); "
                f"caches after dynamo +{cold:.1f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
