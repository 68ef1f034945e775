"""``cuvil-opt FILE -p PIPELINE``: run passes on a ``.cuvilir`` file, print the result.

Cuvil's ``mlir-opt``, part of the compiler: it parses the file (``-`` for stdin),
optionally gives params random data, runs the pipeline (``build_pipeline``, verified
after every pass) and prints the resulting IR. The FileCheck tests in
tests/passes/filecheck drive it; ``cuvil-debug opt`` is the same command.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path

from .args import CompileArgs, OutputArgs, PassDebugArgs, run_main
from .argtypes import byte_size, input_file
from .errors import CuvilError
from .ir import Module, parse_file, parse_module, print_module
from .ir.interpreter import random_params
from .ir.parser import DEFAULT_MAX_CONSTANT_BYTES
from .options import CompileOptions
from .passes import (
    Callback,
    PassContext,
    PassPipeline,
    build_pipeline,
    combine,
    describe_bisect,
    format_table,
)

__all__ = [
    "main",
    "build_parser",
    "add_arguments",
    "run",
    "run_pipeline",
    "report_bisect",
    "read_ir",
    "add_limit",
    "DESCRIPTION",
]

PROG = "cuvil-opt"
DESCRIPTION = (
    "Parse a .cuvilir file (- for stdin), run passes, verify after each one and "
    "print the resulting IR."
)
COMPILE = CompileArgs(default_level=None)  # no -p, no -O: no passes
WATCH = PassDebugArgs()
OUTPUT = OutputArgs("write the IR to FILE")


def main(argv: Sequence[str] | None = None) -> int:
    """The ``cuvil-opt`` console script."""
    return run_main(PROG, build_parser().parse_args(argv))


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=DESCRIPTION)
    parser.add_argument(
        "--traceback", action="store_true", help="show the Python traceback of an error"
    )
    add_arguments(parser)
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments (also those of ``cuvil-debug opt``)."""
    parser.add_argument(
        "file",
        metavar="FILE",
        type=input_file,
        help="a .cuvilir file, or - for stdin",
    )
    COMPILE.add_to(parser)
    WATCH.add_to(parser)
    parser.add_argument(
        "--random-params",
        action="store_true",
        help="give params random data so data-dependent passes (fold-bn) can run",
    )
    parser.add_argument(
        "--pass-table", action="store_true", help="print the pass table on stderr"
    )
    add_limit(parser)
    OUTPUT.add_to(parser)
    parser.set_defaults(run=run)


def add_limit(parser: argparse.ArgumentParser) -> None:
    """``--max-constant-bytes N``: the largest dense<...> constant (and, with
    --random-params, all params together) a .cuvilir file may ask for."""
    parser.add_argument(
        "--max-constant-bytes",
        type=byte_size,
        default=DEFAULT_MAX_CONSTANT_BYTES,
        metavar="N",
        help="refuse a dense<...> constant over N bytes (e.g. 64M; default "
        f"{DEFAULT_MAX_CONSTANT_BYTES >> 20}M)",
    )


def run(args: argparse.Namespace) -> int:
    output = OUTPUT.parse(args)
    output.check()
    options = COMPILE.parse(args, WATCH.parse(args))  # its mistakes before any work
    limit = args.max_constant_bytes
    module = (
        parse_module(sys.stdin.read(), "<stdin>", max_constant_bytes=limit)
        if args.file == "-"
        else read_ir(args.file, limit)
    )
    if args.random_params:
        _check_param_bytes(module, limit)
        random_params(module)
    pipeline, ctx = run_pipeline(module, options)
    if args.pass_table:
        print(format_table(pipeline.infos), file=sys.stderr)
    report_bisect(options, ctx)
    output.write(print_module(module))
    return 0


def run_pipeline(
    module: Module, options: CompileOptions, callback: Callback | None = None
) -> tuple[PassPipeline, PassContext]:
    """A pass tool's run: ``build_pipeline(options)`` with its instrumentation on
    stdout, on `module` in place, with the options' bisect limit. `callback` is one
    more pass callback after the instrumentation's (the TUI's pass history)."""
    pipeline = build_pipeline(options, stream=sys.stdout)
    pipeline.callback = combine(pipeline.callback, callback)
    ctx = pipeline.run(module, PassContext(options.debug_options.bisect_limit))
    return pipeline, ctx


def report_bisect(options: CompileOptions, ctx: PassContext) -> None:
    """With a bisect limit: which action was the last applied (on stderr)."""
    if options.debug_options.bisect_limit is not None:
        print(describe_bisect(ctx), file=sys.stderr)


def _check_param_bytes(module: Module, limit: int) -> None:
    """--random-params allocates every param: refuse more than `limit` bytes."""
    size = sum(
        math.prod(d if isinstance(d, int) else 1 for d in t.shape)
        * t.dtype.torch.itemsize
        for name, t in module.params.items()
        if name not in module.param_data
    )
    if size > limit:
        raise CuvilError(
            f"--random-params would allocate {size} bytes of params, over the limit "
            f"of {limit} bytes",
            hint="raise it with --max-constant-bytes if the file is trusted",
        )


def read_ir(path: str | Path, max_constant_bytes: int | None = None) -> Module:
    """Parse a `.cuvilir` file; a file that cannot be read is a CuvilError too."""
    try:
        return parse_file(path, max_constant_bytes=max_constant_bytes)
    except OSError as e:
        raise CuvilError(
            f"cannot read the file: {e.strerror or e}", where=str(path)
        ) from e


if __name__ == "__main__":
    sys.exit(main())
