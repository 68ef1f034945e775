"""`cuvil-debug tui TARGET`: TARGET is a `.cuvilir` file, a model (the MODEL of the
other commands) or a diff report (`.json`, difftarget.py; `--diff` overlays one). The target is loaded before the UI starts, so a bad one is one error
line and exit 2 (a CuvilError through cuvil.args.run_main), never a half-drawn screen.

A model is lowered with its frontend and optimized with the pipeline of ``-O``/``-p``
(default -O3, as `cuvil-debug passes` runs it); a `.cuvilir` file is shown as written
unless ``-O`` or ``-p`` is given.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

from cuvil import opt
from cuvil.args import CompileArgs
from cuvil.errors import CuvilError
from cuvil.frontend import lower
from cuvil.ir import Module, verify

from ..args import ModelArgs
from . import difftarget

__all__ = ["add_parser", "load_target", "run_tui"]

MODEL = ModelArgs()
COMPILE = CompileArgs(default_level="3")


def add_parser(commands) -> None:
    p = commands.add_parser(
        "tui",
        help="browse a model's or a .cuvilir file's IR in a terminal UI",
        description="Open a Textual app on the IR of TARGET: a .cuvilir file, or a "
        "model (lowered and optimized). Keys: press ? in the app (docs/TUI.md).",
    )
    MODEL.add_to(p)
    p.set_defaults(run=run_tui)
    # MODEL's positional reads TARGET here: a model or a .cuvilir file
    for action in p._actions:
        if action.dest == "model":
            action.metavar = "TARGET"
            action.help = (
                "a .cuvilir file, path/to/model.py, package.module:attr or a "
                "diff report (cuvil-debug diff --format json)"
            )
    COMPILE.add_to(p)
    difftarget.add_arguments(p)


def load_target(
    args: argparse.Namespace, report: dict | None = None
) -> tuple[Module, Path | None]:
    """The module to show and the folder its source paths are relative to. Every
    failure is a one-line CuvilError (its note and hint folded into the line).
    `report`: the report of a diff report TARGET, when read already."""
    try:
        return _load(args, report)
    except CuvilError as e:
        raise _one_line(e) from e


def _load(args: argparse.Namespace, report: dict | None) -> tuple[Module, Path | None]:
    target = args.model
    if difftarget.is_report_path(target):
        return difftarget.report_target(args, report)
    if target.endswith(".cuvilir"):
        module = opt.read_ir(target)
        verify(module)
        if args.pipeline is not None or args.opt_level is not None:
            _optimize(module, args)
        return module, Path(target).parent
    model = MODEL.parse(args)
    loaded = model.load()
    module = lower(loaded.model, loaded.inputs, frontend=model.frontend)
    _optimize(module, args)
    return module, Path(target).parent if target.endswith(".py") else None


def _optimize(module: Module, args: argparse.Namespace) -> None:
    # the pass instrumentation's stdout would land under the UI: keep it
    with contextlib.redirect_stdout(io.StringIO()):
        opt.run_pipeline(module, COMPILE.parse(args))


def _one_line(e: CuvilError) -> CuvilError:
    message = e.message.splitlines()[0] if e.message else type(e).__name__
    if e.hint:
        message += f" (hint: {e.hint})"
    return CuvilError(message, where=e.where)


def run_tui(args: argparse.Namespace) -> int:
    report = _checked(difftarget.load_report, args)  # a diff report, or None
    module, base = load_target(args, report)
    _checked(difftarget.build_app, module, base, report, args.diff or args.model).run()
    return 0


def _checked(fn, *args):
    try:
        return fn(*args)
    except CuvilError as e:
        raise _one_line(e) from e
