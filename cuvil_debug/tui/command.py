"""`cuvil-debug tui TARGET`: TARGET is a `.cuvilir` file, a model (the MODEL of the
other commands) or a diff report (`.json`, difftarget.py; `--diff` overlays one).

What is quick to check is checked before the UI starts (the file is there; a `.cuvilir`
file or a report's IR parses and verifies; a report is a diff report of this schema
version); the slow part (importing, lowering and optimizing a model) runs in the app's
worker under a progress pane. Either way a bad target is one error line and exit 2 (a
CuvilError through cuvil.args.run_main), never a traceback: the worker's error is
re-raised here once the terminal is restored.

A model is lowered with its frontend and optimized with the pipeline of ``-O``/``-p``
(default -O3, as `cuvil-debug passes` runs it); a `.cuvilir` file is shown as written
unless ``-O`` or ``-p`` is given.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from collections.abc import Callable
from pathlib import Path

from cuvil import opt
from cuvil.args import CompileArgs
from cuvil.errors import CuvilError
from cuvil.frontend import lower
from cuvil.ir import Module, verify

from ..args import ModelArgs
from . import difftarget
from .history import HistoryRecorder, PassHistory

Progress = Callable[[str], None]

__all__ = [
    "add_parser",
    "load_target",
    "load_with_history",
    "make_app",
    "outcome",
    "run_tui",
]

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
    opt.add_limit(p)


def load_target(
    args: argparse.Namespace, progress: Progress = lambda _msg: None
) -> tuple[Module, Path | None]:
    """The module to show and the folder its source paths are relative to. Every
    failure is a one-line CuvilError (its note and hint folded into the line)."""
    module, base, _ = load_with_history(args, progress)
    return module, base


def load_with_history(
    args: argparse.Namespace, progress: Progress = lambda _msg: None
) -> tuple[Module, Path | None, PassHistory | None]:
    """`load_target`, and the pass history of the pipeline it ran (None: none ran)."""
    with _one_line_errors():
        report = difftarget.load_report(args)
        return _finish(args, _start(args, report), progress)


@contextlib.contextmanager
def _one_line_errors():
    try:
        yield
    except CuvilError as e:
        raise _one_line(e) from e


Start = tuple[Module | None, Path | None]  # the module read so far, its source folder


def _start(args: argparse.Namespace, report: dict | None) -> Start:
    """The quick checks: a `.cuvilir` file is read and verified, a diff report's IR
    parsed; a model file must exist (its module None: it is loaded in `_finish`)."""
    target = args.model
    is_ir = target.endswith(".cuvilir") or difftarget.is_report_path(target)
    if is_ir and args.entry:
        raise CuvilError(
            f"--entry {args.entry} names a model's class; '{target}' is not a model"
        )
    if difftarget.is_report_path(target):
        return difftarget.report_target(args, report)
    if target.endswith(".cuvilir"):
        module = opt.read_ir(target, getattr(args, "max_constant_bytes", None))
        verify(module)
        return module, Path(target).parent
    if target.endswith(".py") and not Path(target).is_file():
        MODEL.parse(args).load()  # the loader's own "does not exist" error
    return None, Path(target).parent if target.endswith(".py") else None


def _finish(
    args: argparse.Namespace, start: Start, progress: Progress
) -> tuple[Module, Path | None, PassHistory | None]:
    module, base = start
    if module is not None:
        history = None
        if args.model.endswith(".cuvilir") and _wants_passes(args):
            progress("optimizing")
            history = _optimize(module, args)
        return module, base, history
    model = MODEL.parse(args)
    progress(f"importing {args.model}")
    loaded = model.load()
    progress(f"lowering with torch.{model.frontend}")
    module = lower(loaded.model, loaded.inputs, frontend=model.frontend)
    progress("optimizing")
    return module, base, _optimize(module, args)


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


def repro_args(args: argparse.Namespace) -> list[str] | None:
    """MODEL and the options it was opened with, as `cuvil-debug reduce` takes them
    (None for a .cuvilir or report target: there is no model to reduce)."""
    if args.model.endswith(".cuvilir") or difftarget.is_report_path(args.model):
        return None
    out = [args.model]
    if args.frontend != "fx":
        out += ["--frontend", args.frontend]
    if args.entry:
        out += ["--entry", args.entry]
    if args.opt_level is not None:
        out += ["-O", args.opt_level]
    if args.no_fusion:
        out.append("--no-fusion")
    if args.pipeline is not None:
        out += ["-p", args.pipeline]
    return out


def make_app(args: argparse.Namespace):
    """The app for parsed `tui` arguments, its target checked (quick checks raise a
    one-line CuvilError here) and the rest of the loading left to the app's worker."""
    with _one_line_errors():
        report = difftarget.load_report(args)  # a diff report, or None
        start = _start(args, report)
    from .app import CuvilTUI  # Textual is imported only when a UI is started
    from .data import ModuleView
    from .loading import Loaded

    def loader(progress: Progress = lambda _msg: None) -> Loaded:
        with _one_line_errors():
            module, base, history = _finish(args, start, progress)
            view = ModuleView(module, base)
            where = args.diff or args.model
            diff = difftarget.overlay(report, view, where)
            return Loaded(view, diff=diff, history=history)

    common = {"what": args.model, "repro_args": repro_args(args)}
    if start[0] is not None and not _wants_passes(args):
        # read already (a .cuvilir file or a report): no worker, every check done here
        loaded = loader()
        return CuvilTUI(loaded.view, diff=loaded.diff, history=loaded.history, **common)
    return CuvilTUI(loader=loader, **common)


def _wants_passes(args: argparse.Namespace) -> bool:
    return args.pipeline is not None or args.opt_level is not None


def run_tui(args: argparse.Namespace) -> int:
    app = make_app(args)
    app.run()
    return outcome(app)


def outcome(app) -> int:
    """The exit code of a finished app; the loader's error, if it failed, is raised
    (the terminal is back by now, so it prints as the one error line)."""
    if app.load_error is not None:
        raise app.load_error
    return app.return_code or 0
