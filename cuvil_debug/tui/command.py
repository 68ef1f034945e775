"""`cuvil-debug tui TARGET`: TARGET is a `.cuvilir` file or a model (the MODEL of the
other commands). The target is loaded before the UI starts, so a bad one is one error
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
from .history import HistoryRecorder, PassHistory

__all__ = ["add_parser", "load_target", "load_with_history", "run_tui"]

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
            action.help = "a .cuvilir file, path/to/model.py or package.module:attr"
    COMPILE.add_to(p)


def load_target(args: argparse.Namespace) -> tuple[Module, Path | None]:
    """The module to show and the folder its source paths are relative to. Every
    failure is a one-line CuvilError (its note and hint folded into the line)."""
    module, base, _ = load_with_history(args)
    return module, base


def load_with_history(
    args: argparse.Namespace,
) -> tuple[Module, Path | None, PassHistory | None]:
    """`load_target`, and the pass history of the pipeline it ran (None: none ran)."""
    try:
        return _load(args)
    except CuvilError as e:
        raise _one_line(e) from e


def _load(args: argparse.Namespace) -> tuple[Module, Path | None, PassHistory | None]:
    target = args.model
    if target.endswith(".cuvilir"):
        module = opt.read_ir(target)
        verify(module)
        history = None
        if args.pipeline is not None or args.opt_level is not None:
            history = _optimize(module, args)
        return module, Path(target).parent, history
    model = MODEL.parse(args)
    loaded = model.load()
    module = lower(loaded.model, loaded.inputs, frontend=model.frontend)
    history = _optimize(module, args)
    return module, Path(target).parent if target.endswith(".py") else None, history


def _optimize(module: Module, args: argparse.Namespace) -> PassHistory:
    # the pass timeline's history is recorded by one more pass callback (history.py)
    recorder = HistoryRecorder(module)
    # the pass instrumentation's stdout would land under the UI: keep it
    with contextlib.redirect_stdout(io.StringIO()):
        pipeline, _ = opt.run_pipeline(module, COMPILE.parse(args), recorder)
    return recorder.history(str(pipeline))


def _one_line(e: CuvilError) -> CuvilError:
    message = e.message.splitlines()[0] if e.message else type(e).__name__
    if e.hint:
        message += f" (hint: {e.hint})"
    return CuvilError(message, where=e.where)


def run_tui(args: argparse.Namespace) -> int:
    module, base, history = load_with_history(args)
    from .app import CuvilTUI  # Textual is imported only when a UI is started
    from .data import ModuleView

    CuvilTUI(ModuleView(module, base), history=history).run()
    return 0
