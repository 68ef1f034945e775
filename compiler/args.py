"""Command-line argument groups for the compiler's options, each declared once.

Modelled on Polygraphy's ``tools/args``: one small class per group; ``add_to(parser)``
adds its flags, ``parse(args)`` turns the parsed namespace into a typed value::

    COMPILE = CompileArgs(default_level=None)  # -p/--pipeline, -O, --no-fusion
    WATCH = PassDebugArgs()  # --print-after-all/-change, --bisect-limit, --snapshot-dir
    OUT = OutputArgs("write the IR to FILE")  # -o/--output, --force

    options = COMPILE.parse(args, debug_options=WATCH.parse(args))  # CompileOptions
    OUT.parse(args).write(text)  # never over an existing file without --force

``cuvil-opt`` (``cuvil/opt.py``) and the ``cuvil-debug`` subcommands use these; the
toolkit declares its own groups (the model, the checks: --inject, tolerances) the same way.
``run_main`` is the tools' error policy: a user mistake (a CuvilError) is one line and
exit 2, a bug is exit 3 with a hint to ``--traceback``.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .argtypes import count, folder_path, positive_int
from .errors import CuvilError
from .options import CompileOptions, DebugOptions
from .userpaths import OutputError, check_file, write_file

__all__ = [
    "CompileArgs",
    "PassDebugArgs",
    "OutputArgs",
    "Output",
    "OutputError",
    "check_output",
    "write_output",
    "count",
    "run_main",
    "describe_error",
    "EXIT_OK",
    "EXIT_USAGE",
    "EXIT_INTERNAL",
]

EXIT_OK, EXIT_USAGE, EXIT_INTERNAL = 0, 2, 3
_LEVELS = ["0", "1", "2", "3"]


# ---- what to build -------------------------------------------------------------------
def pipeline_text(text: str) -> str:
    """argparse type: a pass pipeline whose every pass and option is known."""
    from .passes.pipeline import parse_pipeline

    try:
        parse_pipeline(text)
    except CuvilError as e:
        hint = f" ({e.hint})" if e.hint else ""
        raise argparse.ArgumentTypeError(f"{e.message}{hint}") from None
    return text


class CompileArgs:
    """``-O``, ``--no-fusion``, ``-p/--pipeline`` (and ``--threads``, ``--break-on``)
    -> CompileOptions.

    A pass tool (``cuvil-opt``, ``cuvil-debug passes``): ``-O`` picks the default
    pipeline, `default_level`'s when neither ``-p`` nor ``-O`` is given (None: no
    passes). A tool that compiles (``native=True``: diff, bisect, reduce): ``-O`` is
    the level of the whole compile (default `default_level`), ``--threads`` sets
    the kernel threads and ``--break-on NODE`` (repeatable) traps in NODE's kernel.
    The frontend is the model group's ``--frontend``, if any."""

    def __init__(self, default_level: str | None = "3", *, native: bool = False):
        self.default_level, self.native = default_level, native

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        level, fusion, pipeline = self._arguments()
        for flags, kwargs in (
            (level, fusion, pipeline) if self.native else (pipeline, level, fusion)
        ):
            parser.add_argument(*flags, **kwargs)
        if self.native:
            parser.add_argument(
                "--threads",
                type=positive_int,
                default=1,
                metavar="N",
                help="kernel threads (default 1)",
            )
            parser.add_argument(
                "--break-on",
                action="append",
                default=[],
                metavar="NODE",
                help="start the kernel computing FX node (or op) NODE with a debugger "
                "trap; repeatable (run under gdb/lldb: the process dies of SIGTRAP "
                "otherwise)",
            )

    def _arguments(self):
        if self.native:
            level_help = (
                "optimization level of the compile being checked "
                f"(default: {self.default_level})"
            )
            fusion_help = "leave out fusion passes"
            pipeline_help = "the pass pipeline instead of the opt level's default"
        else:
            level_help = "use the default pipeline of this opt level"
            fusion_help = "leave out the fusion passes"
            default = f"-O{self.default_level}" if self.default_level else "none"
            pipeline_help = (
                "passes to run, e.g. 'fold-bn,fuse-elementwise{max-ops=8},dce' "
                f"(default: {default})"
            )
        default_level = self.default_level if self.native else None
        return (
            (
                ["-O"],
                dict(
                    dest="opt_level",
                    choices=_LEVELS,
                    default=default_level,
                    help=level_help,
                ),
            ),
            (["--no-fusion"], dict(action="store_true", help=fusion_help)),
            (
                ["-p", "--pipeline"],
                dict(metavar="PIPELINE", type=pipeline_text, help=pipeline_help),
            ),
        )

    def parse(
        self, args: argparse.Namespace, debug_options: DebugOptions | None = None
    ) -> CompileOptions:
        frontend = getattr(args, "frontend", None) or "fx"
        extra = {} if debug_options is None else {"debug_options": debug_options}
        if not self.native:
            text, level = args.pipeline, args.opt_level or self.default_level
            return CompileOptions(
                opt_level=f"O{level or 3}",
                enable_fusion=not args.no_fusion,
                frontend=frontend,
                pipeline="" if text is None and not level else text,
                **extra,
            )
        if args.threads < 1:
            raise CuvilError(
                f"--threads {args.threads}: kernels need at least one thread",
                hint="give --threads N with N >= 1",
            )
        return CompileOptions(
            opt_level=f"O{args.opt_level}",
            enable_fusion=not args.no_fusion,
            frontend=frontend,
            num_threads=args.threads,
            pipeline=args.pipeline,
            break_on=tuple(args.break_on),
            **extra,
        )


# ---- how to watch the passes ---------------------------------------------------------
class PassDebugArgs:
    """``--print-after-all``, ``--print-after-change``, ``--bisect-limit N``,
    ``--snapshot-dir DIR`` -> DebugOptions; a pass tool verifies after every pass
    (`verify_each`)."""

    def __init__(self, *, verify_each: bool = True) -> None:
        self.verify_each = verify_each

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--print-after-all",
            action="store_true",
            help="print the IR after each pass",
        )
        parser.add_argument(
            "--print-after-change",
            action="store_true",
            help="print a unified diff of the IR after each pass that changed it",
        )
        parser.add_argument(
            "--bisect-limit",
            type=count,
            metavar="N",
            default=None,
            help="apply only the first N rewrite actions (pass bisection)",
        )
        parser.add_argument(
            "--snapshot-dir",
            metavar="DIR",
            type=folder_path,
            help="write the IR after each pass to DIR/0001-<pass>.cuvilir ... "
            "(a folder holding snapshots needs --force)",
        )
        add_force(parser, "let --snapshot-dir (and -o) overwrite files")

    def parse(self, args: argparse.Namespace) -> DebugOptions:
        """The options; a --snapshot-dir holding snapshots already (of an earlier
        run) is refused here, before any work, unless --force."""
        if args.snapshot_dir and not getattr(args, "force", False):
            check_snapshot_dir(args.snapshot_dir)
        return DebugOptions(
            bisect_limit=args.bisect_limit,
            print_after_all=args.print_after_all,
            print_after_change=args.print_after_change,
            snapshot_dir=args.snapshot_dir,
            verify_each=self.verify_each,
        )


_SNAPSHOT = re.compile(r"\d{4}-.+\.cuvilir")


def check_snapshot_dir(path: str) -> None:
    """Raise OutputError if folder `path` holds pass snapshots (``NNNN-*.cuvilir``)."""
    folder = Path(path)
    old = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    old = [name for name in old if _SNAPSHOT.fullmatch(name)]
    if old:
        raise OutputError(
            f"--snapshot-dir '{folder}' already holds snapshots ({old[0]} ...); "
            "pass --force to overwrite them or choose another folder"
        )


def add_force(parser: argparse.ArgumentParser, help: str) -> None:
    """Add ``--force`` to `parser` unless another group added it already."""
    if "--force" not in parser._option_string_actions:
        parser.add_argument("--force", action="store_true", help=help)


# ---- where the result goes -----------------------------------------------------------
@dataclass(frozen=True)
class Output:
    """Where a tool writes: `path` (None or '-': stdout), more files by name (`also`,
    e.g. ``--dot``), `force` (overwrite them) and the chosen `format`, if any."""

    path: str | None
    force: bool = False
    format: str | None = None
    also: Mapping[str, str | None] = field(default_factory=dict)

    def check(self) -> None:
        """Fail now, before the slow work, if a file could not be written."""
        for path in (self.path, *self.also.values()):
            check_output(path, force=self.force)

    def write(self, text: str | bytes, also: str | None = None) -> None:
        """Write `text` to the output (or to the file of ``also=NAME``)."""
        path = self.path if also is None else self.also[also]
        write_output(text, path, force=self.force)


class OutputArgs:
    """``[--format F] -o/--output FILE [--ALSO FILE ...] [--force]`` -> Output.

    `help` is -o's help; `force` --force's (None: no --force); `also` are further
    output files as (flag, help); `formats` (with `default_format`, `format_help`,
    `format_dest`) add --format before -o."""

    def __init__(
        self,
        help: str,
        *,
        metavar: str | None = "FILE",
        default: str | None = None,
        force: str | None = "let -o overwrite FILE",
        also: Sequence[tuple[str, str]] = (),
        formats: Sequence[str] = (),
        default_format: str | None = None,
        format_help: str | None = None,
        format_dest: str = "format",
    ) -> None:
        self.help, self.metavar, self.default, self.force = (
            help,
            metavar,
            default,
            force,
        )
        self.also = list(also)
        self.formats, self.default_format = list(formats), default_format
        self.format_help, self.format_dest = format_help, format_dest

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        if self.formats:
            parser.add_argument(
                "--format",
                choices=self.formats,
                default=self.default_format,
                dest=self.format_dest,
                help=self.format_help,
            )
        kwargs = {"metavar": self.metavar} if self.metavar else {}
        if self.default is not None:
            kwargs["default"] = self.default
        parser.add_argument("-o", "--output", help=self.help, **kwargs)
        for flag, text in self.also:
            parser.add_argument(flag, metavar="FILE", help=text)
        if self.force is not None:
            add_force(parser, self.force)

    def parse(self, args: argparse.Namespace) -> Output:
        also = {f.lstrip("-"): getattr(args, f.lstrip("-")) for f, _ in self.also}
        return Output(
            args.output,
            force=bool(getattr(args, "force", False)),
            format=getattr(args, self.format_dest) if self.formats else None,
            also=also,
        )


def write_output(text: str | bytes, path: str | None, *, force: bool = False) -> None:
    """Print `text` when `path` is None or '-'; else write it to `path` (bytes, e.g. a
    PNG, as they are; text as UTF-8) atomically, never over an existing file without
    `force` (cuvil.userpaths)."""
    if path is None or path == "-":
        if isinstance(text, bytes):
            sys.stdout.buffer.write(text)
            sys.stdout.flush()
            return
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    write_file(path, text, force=force)


def check_output(path: str | None, *, force: bool = False) -> None:
    """Raise OutputError if a file could not be written at `path`; a tool calls this
    before its slow work so that a bad -o fails at once."""
    if path is not None and path != "-":
        check_file(path, force=force)


# ---- errors and exit codes -----------------------------------------------------------
def describe_error(err: CuvilError, prog: str) -> str:
    """`where: error: message` (or `PROG: error: message`), then any note."""
    text = str(err) if err.where else f"{prog}: error: {err}"
    return f"{text}\n{err.note}" if err.note else text


def run_main(prog: str, args: argparse.Namespace) -> int:
    """Run a parsed command (``args.run(args)``): a CuvilError is the user's mistake
    (one line on stderr, exit 2), another exception a bug (exit 3); ``args.traceback``
    re-raises instead."""
    _no_final_collection()
    try:
        return args.run(args)
    except CuvilError as e:
        if args.traceback:
            raise
        print(describe_error(e, prog), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception as e:
        if args.traceback:
            raise
        print(
            f"{prog}: internal error: {type(e).__name__}: {e} (rerun with --traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


_FREEZE_AT_EXIT: list[bool] = []


def _no_final_collection() -> None:
    """At exit, Python's finalization runs the cycle collector over every object still
    alive: torch's and Cuvil's modules, ~0.4 s of CPU after a command has finished
    (measured: ``import torch`` then exit, 1.9 s against 1.5 s). ``gc.freeze()`` in an
    exit handler puts them out of its reach: objects are still freed by reference
    counting as the modules are cleared, only garbage cycles left at exit stay
    uncollected (Python does not promise their finalizers at exit either). Registered
    once per process (a test calling ``run_main`` in-process: at the test run's exit)."""
    if not _FREEZE_AT_EXIT:
        _FREEZE_AT_EXIT.append(True)
        atexit.register(gc.freeze)
