"""`cuvil-debug bench MODEL`: compiled vs eager latency, compile time, peak memory; with
``--baseline`` a regression check that exits 1 (docs/PROFILING.md)."""

from __future__ import annotations

import argparse
import contextlib

import llvmlite.binding as llvm
import torch

import cuvil
from cuvil.args import EXIT_OK, CompileArgs, OutputArgs
from cuvil.argtypes import count, input_file, positive_int
from cuvil.errors import CuvilError
from cuvil.options import CompileOptions

from .. import faults
from ..args import ModelArgs
from . import baseline as base
from .measure import (
    Memory,
    cpu_clock,
    example_batch,
    scale_inputs,
    summary,
    time_calls,
    timed_compiles,
)
from .progress import Progress
from .report import FORMATS, render

__all__ = ["add_parser", "run_bench", "batch_sizes"]

EXIT_REGRESSION = 1
MODEL = ModelArgs()
COMPILE = CompileArgs(default_level="3", native=True)
OUTPUT = OutputArgs(
    "write the report to FILE instead of stdout",
    formats=FORMATS,
    default_format="text",
    format_help="report format (default text; json follows bench.schema.json)",
)


def batch_sizes(text: str) -> tuple[int, ...]:
    """``1,8`` -> (1, 8): the argparse type of --batch-sizes."""
    parts = [p.strip() for p in text.split(",")]
    if not all(p.isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(
            f"invalid batch sizes {text!r}: give positive integers separated by commas, "
            "e.g. 1,8"
        )
    return tuple(dict.fromkeys(int(p) for p in parts))


def add_parser(commands) -> None:
    p = commands.add_parser(
        "bench",
        help="compiled vs eager latency, compile time, memory; regression check",
        description="Measure a model compiled by Cuvil against eager PyTorch: "
        "per-call CPU and wall time (p50/p90/p99, interleaved), throughput, compile "
        "time with a cold and a warm object cache, peak RSS. With --baseline, exit 1 "
        "when the compiled median CPU time regressed beyond the threshold and the "
        "measured noise.",
    )
    MODEL.add_to(p)
    COMPILE.add_to(p)
    _add_measure(p)
    OUTPUT.add_to(p)
    p.set_defaults(run=run_bench)


def _add_measure(p: argparse.ArgumentParser) -> None:
    add = p.add_argument
    add(
        "--batch-sizes",
        type=batch_sizes,
        metavar="B,B",
        help="dim 0 of the inputs "
        "(the example's rows repeated); default: the example inputs' batch",
    )
    add(
        "--warmup",
        type=count,
        default=10,
        metavar="N",
        help="untimed calls of each before timing (default 10)",
    )
    add(
        "--rounds",
        type=positive_int,
        default=10,
        metavar="N",
        help="interleaved rounds (default 10); their spread is the noise",
    )
    add(
        "--calls",
        type=positive_int,
        default=20,
        metavar="N",
        help="timed calls of each contender per round (default 20)",
    )
    add(
        "--baseline",
        type=input_file,
        metavar="FILE",
        help="an earlier --format json report to compare with (exit 1 on a regression)",
    )
    add(
        "--max-regression",
        type=base.percentage,
        default=0.10,
        metavar="P%",
        help="the slowdown that is a regression, if above the noise (default 10%%)",
    )
    add(
        "--inject",
        action="append",
        default=[],
        metavar="SPEC",
        help="compile with a fault, e.g. kernel:fc:twice (docs/FAULTS.md); repeatable",
    )
    add(
        "--progress",
        action="store_true",
        help="progress lines on stderr even when it is not a terminal",
    )


def run_bench(args: argparse.Namespace) -> int:
    output = OUTPUT.parse(args)
    output.check()
    if args.break_on:
        raise CuvilError(
            "--break-on traps would stop the benchmark", hint="leave out --break-on"
        )
    options = COMPILE.parse(args)
    specs = [faults.parse(s).spec for s in args.inject]  # a bad spec fails now
    previous = base.load_baseline(args.baseline) if args.baseline else None
    loaded = MODEL.parse(args).load()
    sizes = args.batch_sizes or (example_batch(loaded.inputs) or 1,)
    if args.batch_sizes:
        scale_inputs(loaded.inputs, sizes[0])  # no batch dim: fail before the work
    report = _measure(loaded, sizes, options, specs, args)
    if previous is not None:
        report["comparison"] = base.compare(
            report, previous, args.baseline, args.max_regression
        )
    output.write(render(report, output.format or "text"))
    regressed = bool(report["comparison"] and report["comparison"]["regressed"])
    return EXIT_REGRESSION if regressed else EXIT_OK


def _measure(loaded, sizes, options: CompileOptions, specs, args) -> dict:
    memory = Memory()
    report = _header(loaded, options, specs, args, memory)
    progress = Progress(len(sizes) * (args.rounds + 1), force=args.progress)
    peaks = {"compile": 0.0, "run": 0.0}
    with _torch_threads(options.num_threads):
        for batch in sizes:
            report["results"].append(
                _one_batch(loaded, batch, options, specs, args, memory, progress, peaks)
            )
    progress.done()
    report["memory"].update(
        compile_peak_mib=peaks["compile"], run_peak_mib=peaks["run"]
    )
    return report


def _header(loaded, options: CompileOptions, specs, args, memory: Memory) -> dict:
    clock_name, _ = cpu_clock(options.num_threads)
    return {
        "schema": base.SCHEMA_TAG,
        "model": loaded.source,
        "versions": {
            "cuvil": cuvil.__version__,
            "torch": torch.__version__,
            "llvm": ".".join(map(str, llvm.llvm_version_info)),
        },
        "options": {
            "opt_level": options.opt_level,
            "fusion": options.enable_fusion,
            "threads": options.num_threads,
            "frontend": options.frontend,
            "pipeline": options.pipeline,
            "inject": list(specs),
        },
        "settings": {
            "warmup": args.warmup,
            "rounds": args.rounds,
            "calls": args.calls,
            "cpu_clock": clock_name,
        },
        "memory": {"source": memory.source, "rss_start_mib": memory.rss_mib()},
        "results": [],
        "comparison": None,
    }


def _one_batch(loaded, batch, options, specs, args, memory, progress, peaks) -> dict:
    inputs = scale_inputs(loaded.inputs, batch) if args.batch_sizes else loaded.inputs
    flat = options.to_dict()

    def build():
        return cuvil.compile(
            loaded.model, inputs, options=flat, hooks=faults.hooks(specs)
        )

    memory.reset()
    compiled, times = timed_compiles(build)
    peaks["compile"] = max(peaks["compile"], memory.peak_mib())
    progress.step(f"batch {batch}: compiled")
    model = loaded.model

    def eager():
        with torch.no_grad():
            return model(*inputs)

    memory.reset()
    clock_name, clock = cpu_clock(options.num_threads)
    samples = time_calls(
        {"compiled": lambda: compiled(*inputs), "eager": eager},
        warmup=args.warmup,
        rounds=args.rounds,
        calls=args.calls,
        clock=clock,
        tick=lambda label: progress.step(f"batch {batch}: {label}"),
    )
    peaks["run"] = max(peaks["run"], memory.peak_mib())
    ours, theirs = summary(samples["compiled"], batch), summary(samples["eager"], batch)
    return {
        "batch": batch,
        "compile": {
            "cold_s": times.cold_s,
            "warm_s": times.warm_s,
            "warm_cache_hit": times.warm_hit,
        },
        "compiled": ours,
        "eager": theirs,
        "speedup_cpu": _ratio(theirs["cpu_ms"]["p50"], ours["cpu_ms"]["p50"]),
        "speedup_wall": _ratio(theirs["wall_ms"]["p50"], ours["wall_ms"]["p50"]),
    }


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else 0.0


@contextlib.contextmanager
def _torch_threads(n: int):
    """Eager runs with as many intra-op threads as the kernels get."""
    saved = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(saved)
