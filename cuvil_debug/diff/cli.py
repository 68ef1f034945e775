"""``cuvil-debug diff | bisect | reduce``: the command lines over the diff engine.

Exit codes (shared with the rest of cuvil-debug): 0 no divergence (or below every
``--fail-on`` threshold); 1 a divergence (``diff``/``bisect``: found one; ``reduce``: wrote
a repro); 2 a user mistake; 3 an internal error.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from pathlib import Path

from cuvil.argtypes import positive_int
from cuvil.errors import CuvilError
from cuvil.options import CompileOptions
from cuvil.userpaths import check_dir

from ..args import CheckArgs, CompileArgs, ModelArgs, OutputArgs
from .checks import check_break_on, check_faults, faults_injected
from .engine import DiffOptions, run_diff
from .isolated import (
    add_isolation_args,
    isolation_limits,
    report_texts,
    run_isolated,
    terminal,
)
from .metrics import parse_tolerances
from .model import STAGES, DiffReport
from .progress import StageProgress, progress_mode
from .sweep import SWEEP_FORMATS, add_sweep_args, is_sweep, run_sweep

__all__ = ["add_parsers", "check_fail_on"]

EXIT_OK, EXIT_DIVERGED = 0, 1
_THRESHOLD = re.compile(r"^(max_abs|max_rel|max_ulp|sqnr_db|cosine)\s*([<>])\s*(\S+)$")


def add_parsers(commands) -> None:
    _add_diff(commands)
    _add_bisect(commands)
    _add_reduce(commands)


# ---- shared options ------------------------------------------------------------------------
MODEL = ModelArgs()
MODELS = ModelArgs(many=True)  # diff: one model, or many (sweep.py)
COMPILE = CompileArgs(default_level="3", native=True)
CHECK = CheckArgs()
DIFF_OUTPUT = OutputArgs(
    "write the report to FILE, not stdout",
    force="let -o/--dot overwrite files",
    also=[("--dot", "also write the FX graph, coloured by error")],
    formats=["table", "json", "html", "dot", *SWEEP_FORMATS],
    default_format="table",
    format_help="table (terminal), json (versioned, docs/DIFF.md), html (one "
    "self-contained file) or dot (the FX graph coloured by error); many models: "
    "table, json, markdown, junit or sarif, one result per model",
)
REPRO_OUTPUT = OutputArgs(
    "folder for repro.py and repro.pt (default: ./cuvil-repro)",
    metavar="DIR",
    default="cuvil-repro",
    force="overwrite an existing repro",
)


def _model_args(p: argparse.ArgumentParser, models: ModelArgs = MODEL) -> None:
    models.add_to(p)
    COMPILE.add_to(p)
    CHECK.add_to(p)


def _compile_options(args) -> dict:
    """``cuvil.compile``'s flat options for bisect and reduce (a repro's OPTIONS):
    opt_level, num_threads and frontend, and enable_fusion / pipeline when given."""
    opts = COMPILE.parse(args)
    flat = {
        "opt_level": opts.opt_level,
        "num_threads": opts.num_threads,
        "frontend": opts.frontend,
    }
    if not opts.enable_fusion:
        flat["enable_fusion"] = False
    if opts.pipeline is not None:
        flat["pipeline"] = opts.pipeline
    if opts.break_on:  # each compiles many variants: a trap in each would stop them all
        raise CuvilError(
            "--break-on is for cuvil-debug diff (its native build), not bisect or reduce",
            hint="run: gdb --args cuvil-debug diff MODEL --break-on NODE",
        )
    return flat


# ---- diff ----------------------------------------------------------------------------------
def _add_diff(commands) -> None:
    p = commands.add_parser(
        "diff",
        help="compare every FX node across eager, IR, optimized IR and native code",
        description="Run a model through every compiler stage and compare each FX "
        "node's value with PyTorch eager, propagated and isolated; report the first "
        "node whose error is introduced, the stage and the pass or kernel behind it. "
        "Several models (files, folders, quoted globs, --shard): each in its own "
        "worker, one report with a result per model (docs/DIFF.md, Many models).",
    )
    _model_args(p, MODELS)
    _add_compare_args(p)
    DIFF_OUTPUT.add_to(p)
    add_isolation_args(p)
    p.add_argument(
        "--all", action="store_true", help="table: also show non-tensor nodes"
    )
    p.add_argument(
        "--progress",
        action="store_true",
        help="print each stage as it starts and ends on stderr, one plain line each "
        "(for CI logs; on a terminal a live status line is shown anyway)",
    )
    p.add_argument(
        "--tui",
        action="store_true",
        help="then open the report in cuvil-debug tui (instead of printing it; "
        "-o FILE still writes it)",
    )
    p.add_argument(
        "--fail-on",
        action="append",
        default=[],
        metavar="WHEN",
        help="exit 1 when: 'divergence' (default: a node introduces an error), "
        "'output' (a stage's model output is off), 'never', or a threshold on any "
        "compared value such as 'max_abs>1e-3', 'sqnr_db<40', 'cosine<0.999'",
    )
    add_sweep_args(p)
    p.set_defaults(run=_cmd_diff)


def _add_compare_args(p: argparse.ArgumentParser) -> None:
    """What diff compares, and how strictly."""
    p.add_argument(
        "--stages",
        default=",".join(STAGES),
        metavar="LIST",
        help=f"stages to run, from {','.join(STAGES)} (default: all)",
    )
    p.add_argument(
        "--tol",
        action="append",
        default=[],
        metavar="DTYPE=RTOL,ATOL",
        help="tolerance of one dtype, e.g. f16=1e-3,1e-3; repeatable",
    )
    p.add_argument(
        "--elementwise",
        action="store_true",
        help="hold every element to atol + rtol*|eager| (default: normwise, "
        "max error <= atol + rtol*max|eager|)",
    )
    p.add_argument(
        "--no-members",
        action="store_true",
        help="do not recompute the members of fused kernels natively (faster)",
    )


def _diff_options(args) -> DiffOptions:
    options = COMPILE.parse(args)  # --threads is checked here, as for bisect, reduce
    stages = tuple(s.strip() for s in args.stages.split(",") if s.strip())
    unknown = [s for s in stages if s not in STAGES]
    if unknown or not stages:
        raise CuvilError(
            f"unknown stage(s) {', '.join(unknown) or '(none)'}",
            hint=f"--stages takes a comma-separated list of {', '.join(STAGES)}",
        )
    if "native" in stages and "opt" not in stages:
        stages = (*stages, "opt")
    check = CHECK.parse(args)
    try:
        tolerances = parse_tolerances(check.rtol, check.atol, args.tol)
    except ValueError as e:
        raise CuvilError(str(e)) from None
    return DiffOptions(
        options,
        stages=tuple(s for s in STAGES if s in stages),
        tolerances=tolerances,
        members=not args.no_members,
        normwise=not args.elementwise,
    )


def _cmd_diff(args) -> int:
    output = DIFF_OUTPUT.parse(args)
    output.check()
    for when in args.fail_on:
        _parse_fail_on(when)
    _diff_options(args)  # its mistakes (stages, tolerances) before any work or UI
    isolation_limits(args)
    if is_sweep(args):  # many models: a result each (sweep.py)
        return run_sweep(args, output)
    args.model = args.models[0]
    model = MODEL.parse(args)
    if args.tui:  # the diff runs in the TUI's worker, under its progress pane
        from ..tui.difftarget import run_diff_tui

        if model.spec.endswith(".py") and not os.path.isfile(model.spec):
            model.load()  # a missing model file: its one error line, before any UI

        return run_diff_tui(model.spec, lambda: _diff_and_write(args, output))
    if not (args.no_isolate or args.break_on):  # --break-on: gdb runs this process
        return run_isolated(args, output)
    return _diff_and_write(args, output)[1]


def diff_report(args, progress=None) -> tuple[DiffReport, int]:
    """Run the diff of parsed `args`: the report and the exit code (`--fail-on`).
    `progress`: told each phase as it starts (run_diff's `progress`)."""
    options = _diff_options(args)
    model, check = MODEL.parse(args), CHECK.parse(args)
    loaded = model.load()
    check_faults(loaded, check.inject, model.frontend)
    check_break_on(loaded, options.compile.break_on, model.frontend)
    with faults_injected(check.inject):
        report = run_diff(
            loaded.model,
            loaded.inputs,
            options,
            label=model.spec,
            faults=check.inject,
            progress=progress,
        )
    return report, EXIT_DIVERGED if check_fail_on(report, args.fail_on) else EXIT_OK


def _diff_and_write(args, output) -> tuple[DiffReport, int]:
    """The diff of `args` in this process, written where `output` says."""
    mode = progress_mode(args)
    progress = StageProgress(mode) if mode else None
    try:
        report, code = diff_report(args, progress)
    finally:
        if progress is not None:
            progress.close()
    texts = report_texts(report, output, args, *terminal())
    if texts["report"] is not None:
        output.write(texts["report"])
    if texts["dot"] is not None:
        output.write(texts["dot"], also="dot")
    return report, code


def _parse_fail_on(when: str):
    if when in ("divergence", "output", "never"):
        return when
    m = _THRESHOLD.match(when.replace(" ", ""))
    if m is None:
        raise CuvilError(
            f"--fail-on {when!r} is not understood",
            hint="use divergence, output, never, or METRIC>VALUE / METRIC<VALUE with "
            "METRIC one of max_abs, max_rel, max_ulp (>), sqnr_db, cosine (<)",
        )
    try:
        value = float(m.group(3))
    except ValueError:
        raise CuvilError(
            f"--fail-on {when!r}: {m.group(3)!r} is not a number"
        ) from None
    return m.group(1), m.group(2), value


def check_fail_on(report: DiffReport, conditions: list[str]) -> bool:
    """True when the report trips any condition (default: 'divergence')."""
    for when in conditions or ["divergence"]:
        rule = _parse_fail_on(when)
        if rule == "never":
            continue
        failed = not all(report.outputs_ok.values())  # a stage that failed to run
        if rule == "divergence" and (report.first is not None or failed):
            return True
        if rule == "output" and not all(report.outputs_ok.values()):
            return True
        if isinstance(rule, tuple) and _over_threshold(report, *rule):
            return True
    return False


def _over_threshold(report: DiffReport, metric: str, sign: str, value: float) -> bool:
    for row in report.rows:
        for s in row.stages.values():
            m = s.propagated
            x = getattr(m, metric, None) if m is not None else None
            if x is None or (isinstance(x, float) and math.isnan(x)):
                continue
            if (sign == ">" and x > value) or (sign == "<" and x < value):
                return True
    return False


# ---- bisect --------------------------------------------------------------------------------
def _add_bisect(commands) -> None:
    p = commands.add_parser(
        "bisect",
        help="find the pass action (or LLVM pass) that makes the output diverge",
        description="Binary-search the pass pipeline's rewrite actions (bisect limit) "
        "for the first one after which the compiled model's output differs from eager; "
        "when every Cuvil pass is innocent, continue into LLVM's passes "
        "(-opt-bisect-limit).",
    )
    _model_args(p)
    p.add_argument("--no-llvm", action="store_true", help="do not bisect LLVM's passes")
    p.set_defaults(run=_cmd_bisect)


def _cmd_bisect(args) -> int:
    from .bisect import bisect, format_result

    model, check = MODEL.parse(args), CHECK.parse(args)
    loaded = model.load()
    check_faults(loaded, check.inject, model.frontend)
    with faults_injected(check.inject):
        result = bisect(
            loaded.model,
            loaded.inputs,
            _compile_options(args),
            llvm=not args.no_llvm,
            log=lambda line: print(line, file=sys.stderr),
            **check.tol,
        )
    print(format_result(result))
    return EXIT_OK if result.verdict == "clean" else EXIT_DIVERGED


# ---- reduce --------------------------------------------------------------------------------
def _add_reduce(commands) -> None:
    p = commands.add_parser(
        "reduce",
        help="shrink a diverging (or failing) model to a minimal repro.py",
        description="Delta-debug the model's FX graph down to a small subgraph that "
        "still diverges from eager (or still fails to compile) and write a standalone "
        "repro.py (+ repro.pt with its inputs and weights).",
    )
    _model_args(p)
    REPRO_OUTPUT.add_to(p)
    p.add_argument(
        "--node",
        metavar="NAME",
        help="start from this FX node (default: the diff's first divergence)",
    )
    p.add_argument(
        "--max-checks",
        type=positive_int,
        default=200,
        metavar="N",
        help="at most N candidate compiles (default 200)",
    )
    p.set_defaults(run=_cmd_reduce)


def _cmd_reduce(args) -> int:
    from .reduce import reduce_model
    from .repro import DATA_NAME, REPRO_NAME, write_repro

    output = REPRO_OUTPUT.parse(args)
    out = Path(output.path)
    # before the reduction (minutes): the folder, and the files it would overwrite
    check_dir(out, [REPRO_NAME, DATA_NAME], force=output.force)
    model, check = MODEL.parse(args), CHECK.parse(args)
    if model.frontend != "fx":
        raise CuvilError(
            "reduce works on torch.fx graphs only",
            hint="run it without --frontend export (the node names are fx's then)",
        )
    loaded = model.load()
    check_faults(loaded, check.inject)
    options = _compile_options(args)
    with faults_injected(check.inject):
        node = args.node
        if node is None:
            node = _first_divergence(loaded, COMPILE.parse(args))
        result = reduce_model(
            loaded.model,
            loaded.inputs,
            options,
            target_node=node,
            max_checks=args.max_checks,
            log=lambda line: print(line, file=sys.stderr),
            **check.tol,
        )
        paths = write_repro(
            result,
            out / "repro.py",
            options=options,
            faults=check.inject,
            force=output.force,
        )
    print(
        f"reduced {result.original_nodes} nodes to {result.nodes} ({result.kind}: "
        f"{result.detail}) in {result.checks} checks"
    )
    for path in paths:
        print(f"wrote {path}")
    print(f"run it: python {out / 'repro.py'}")
    return EXIT_DIVERGED


def _first_divergence(loaded, options: CompileOptions) -> str | None:
    """reduce's default target: the diff's first diverging node (said on stderr)."""
    report = run_diff(
        loaded.model,
        loaded.inputs,
        DiffOptions(options, attribute_pass=False, members=False),
    )
    node = report.first.node if report.first else None
    if node:
        print(f"first divergence: {node} ({report.first.stage})", file=sys.stderr)
    return node
