"""`cuvil-debug passes MODEL` and `cuvil-debug opt FILE` (= `cuvil-opt FILE`).

``passes`` lowers a model, runs a pass pipeline and prints the pass table (and, asked
for, the IR diff of each changing pass); ``opt`` is the compiler's ``cuvil-opt``
(cuvil/opt.py): passes on a ``.cuvilir`` file, the result printed.
"""

from __future__ import annotations

import argparse

from cuvil import opt
from cuvil.args import CompileArgs, PassDebugArgs
from cuvil.frontend import lower
from cuvil.opt import main as opt_main  # the cuvil-opt script of older installs
from cuvil.passes import format_table

# registers inject-fault also where the cuvil.passes entry point is not installed
from . import faults as _faults  # noqa: F401
from .args import ModelArgs

__all__ = ["add_parser", "run_passes_cmd", "opt_main"]

MODEL = ModelArgs()
COMPILE = CompileArgs(default_level="3")
WATCH = PassDebugArgs()


def add_parser(commands) -> None:
    """Register the `passes` and `opt` subcommands."""
    p = commands.add_parser(
        "passes",
        help="run the pass pipeline on a model: pass table",
        description="Lower a model, run a pass pipeline and print what "
        "each pass did (changed, actions, time).",
    )
    MODEL.add_to(p)
    COMPILE.add_to(p)
    WATCH.add_to(p)
    p.set_defaults(run=run_passes_cmd)

    q = commands.add_parser(
        "opt",
        help="run passes on a .cuvilir file and print the result",
        description=opt.DESCRIPTION,
    )
    opt.add_arguments(q)


def run_passes_cmd(args: argparse.Namespace) -> int:
    options = COMPILE.parse(args, WATCH.parse(args))  # --snapshot-dir before work
    model = MODEL.parse(args)
    loaded = model.load()
    module = lower(loaded.model, loaded.inputs, frontend=model.frontend)
    pipeline, ctx = opt.run_pipeline(module, options)
    print(f"pipeline: {pipeline}")
    print(format_table(pipeline.infos))
    opt.report_bisect(options, ctx)
    return 0
