"""`cuvil-debug`: the command line of the toolkit. One small function per subcommand.

Exit codes: 0 success; 1 a validated file has errors; 2 a user mistake (bad arguments,
a model that cannot be loaded or lowered); 3 an internal error (a bug in Cuvil).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import cuvil
from cuvil.args import EXIT_OK, EXIT_USAGE, run_main
from cuvil.argtypes import existing_file
from cuvil.frontend import lower
from cuvil.ir import print_module
from cuvil.opt import add_limit

from .args import ModelArgs, OutputArgs
from .bench import add_parser as _add_bench
from .cache_cmd import add_parser as _add_cache
from .ci.command import add_parser as _add_ci
from .diff import cli as diff_cli
from .doctor.command import add_parser as _add_doctor
from .graph.command import add_parser as _add_graph
from .passes_cmd import add_parser as _add_passes
from .profile_cmd import add_parser as _add_profile
from .quant.command import add_parser as _add_quant
from .report_cmd import add_parser as _add_report
from .symbols import add_parser as _add_symbols
from .triage import cli as triage_cli
from .tui.command import add_parser as _add_tui
from .tune_cmd import add_parser as _add_tune
from .validate import format_error, validate_file

__all__ = ["main", "build_parser"]

PROG = "cuvil-debug"
EXIT_INVALID = 1  # validate: a file has errors (0, 2, 3: cuvil.args' exit codes)

MODEL = ModelArgs()
IR_OUTPUT = OutputArgs("write the IR to FILE instead of stdout")


def main(argv: Sequence[str] | None = None) -> int:
    return run_main(PROG, build_parser().parse_args(argv))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Tools to inspect and debug the Cuvil compiler."
    )
    parser.add_argument(
        "--version", action="version", version=f"{PROG} {cuvil.__version__}"
    )
    parser.add_argument(
        "--traceback", action="store_true", help="show the Python traceback of an error"
    )
    parser.set_defaults(run=_cmd_help, parser=parser)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    _add_ir(commands)
    _add_validate(commands)
    triage_cli.add_parser(commands)
    _add_passes(commands)
    diff_cli.add_parsers(commands)
    _add_symbols(commands)
    _add_tui(commands)
    _add_graph(commands)
    _add_cache(commands)
    _add_ci(commands)
    _add_bench(commands)
    _add_profile(commands)
    _add_tune(commands)
    _add_quant(commands)
    _add_doctor(commands)
    _add_report(commands)
    return parser


def _add_ir(commands) -> None:
    p = commands.add_parser(
        "ir",
        help="print a model's Cuvil IR",
        description="Load a model, lower it and print its Cuvil IR.",
    )
    MODEL.add_to(p)
    IR_OUTPUT.add_to(p)
    p.set_defaults(run=_cmd_ir)


def _add_validate(commands) -> None:
    p = commands.add_parser(
        "validate",
        help="parse and verify .cuvilir files",
        description="Parse and verify .cuvilir files; exit 1 if any has an error.",
    )
    p.add_argument(
        "files", nargs="+", metavar="FILE", type=existing_file, help="a .cuvilir file"
    )
    p.add_argument(
        "-q", "--quiet", action="store_true", help="print only errors, not 'FILE: ok'"
    )
    add_limit(p)
    p.set_defaults(run=_cmd_validate)


def _cmd_help(args: argparse.Namespace) -> int:
    args.parser.print_help(sys.stderr)
    return EXIT_USAGE


def _cmd_ir(args: argparse.Namespace) -> int:
    output = IR_OUTPUT.parse(args)
    output.check()
    model = MODEL.parse(args)
    loaded = model.load()
    module = lower(loaded.model, loaded.inputs, frontend=model.frontend)
    output.write(print_module(module))
    return EXIT_OK


def _cmd_validate(args: argparse.Namespace) -> int:
    failed = False
    for path in args.files:
        errors = validate_file(path, args.max_constant_bytes)
        for err in errors:
            _error(format_error(err, path))
        if not errors and not args.quiet:
            print(f"{path}: ok")
        failed = failed or bool(errors)
    return EXIT_INVALID if failed else EXIT_OK


def _error(text: str) -> None:
    print(text, file=sys.stderr)


if (
    __name__ == "__main__"
):  # python -m cuvil_debug.cli (where the script is not installed)
    sys.exit(main())
