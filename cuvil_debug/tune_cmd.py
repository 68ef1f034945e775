"""`cuvil-debug tune MODEL`: measure the kernel plans of a model's convolutions and GEMMs
on this machine and keep the fastest (docs/CONV.md, "Plans by measurement").

The model is compiled as usual (so its shapes are those after the passes: NHWC
convolutions, fused epilogues), then every distinct convolution and GEMM shape is tuned
by ``cuvil.runtime.tune``: the cache model's plan and its alternatives are compiled as
lone kernels and timed interleaved (thread CPU time, best of ``--rounds``). The winners
go to this host's plan table (``~/.cache/cuvil/plans/``), which every later compile on
this kind of machine reads; ``--dry-run`` only prints them.
"""

from __future__ import annotations

import argparse

import cuvil
from cuvil.args import EXIT_OK, CompileArgs, OutputArgs
from cuvil.argtypes import positive_int
from cuvil.codegen import tuned
from cuvil.runtime import tune

from .args import ModelArgs

__all__ = ["add_parser", "run_tune"]

MODEL = ModelArgs()
COMPILE = CompileArgs(default_level="3", native=True)
OUTPUT = OutputArgs("write the table to FILE instead of stdout")


def add_parser(commands) -> None:
    p = commands.add_parser(
        "tune",
        help="measure conv/GEMM kernel plans for a model on this machine, keep the best",
        description="Compile a model, then time the candidate plans of each of its "
        "convolution and GEMM shapes on this machine and record the fastest in the "
        "host's plan table, which later compiles use.",
    )
    MODEL.add_to(p)
    COMPILE.add_to(p)
    p.add_argument(
        "--rounds",
        type=positive_int,
        default=5,
        metavar="N",
        help="interleaved timing rounds per shape (default 5; best of N)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="measure and print, but do not record the plans",
    )
    OUTPUT.add_to(p)
    p.set_defaults(run=run_tune)


def run_tune(args: argparse.Namespace) -> int:
    output = OUTPUT.parse(args)
    output.check()
    options = COMPILE.parse(args)
    loaded = MODEL.parse(args).load()
    cm = cuvil.compile(loaded.model, loaded.inputs, options=options.to_dict())
    rows = []
    for job in tune.module_shapes(cm.module):
        if job[0] == "conv":
            result = tune.tune_conv(job[1], args.rounds, record=not args.dry_run)
        else:
            result = tune.tune_gemm(
                *job[1:], rounds=args.rounds, record=not args.dry_run
            )
        rows.append(result)
    output.write(format_table(rows, None if args.dry_run else tuned.plans_path()))
    return EXIT_OK


def _plan(plan) -> str:
    prefetch = f" prefetch {plan.prefetch // 1024}K" if plan.prefetch else ""
    extra = " bordered" if getattr(plan, "padded", False) else ""
    extra += " ahead" if getattr(plan, "ahead", False) else ""
    return f"{plan.mr}x{plan.nr}{prefetch}{extra}"


def format_table(rows, recorded) -> str:
    head = ("kind", "shape", "candidates", "model GFLOP/s", "best GFLOP/s", "plan")
    body = [
        (
            r.kind,
            r.key,
            str(r.candidates),
            f"{r.model_gflops:.1f}",
            f"{r.gflops:.1f}",
            _plan(r.plan),
        )
        for r in rows
    ]
    table = [head, *body]
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in table
    ]
    where = f"recorded in {recorded}" if recorded else "not recorded (--dry-run)"
    return "\n".join([*lines, "", f"{len(rows)} shapes; {where}"]) + "\n"
