"""`cuvil-debug graph TARGET -o FILE.svg`: draw the FX graph beside the optimized IR
(docs/GRAPH.md). TARGET is a model (lowered, then -O3 by default, like `cuvil-debug
tui`) or a `.cuvilir` file (the IR side only: its ops name their FX nodes). The format
is --format's, else -o's suffix (.svg, .png, .dot), else DOT on stdout."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from cuvil.args import CompileArgs, OutputArgs
from cuvil.errors import CuvilError
from cuvil.opt import add_limit

from ..args import ModelArgs
from ..diff.model import DiffReport, NodeRow
from ..tui.command import load_target
from .build import FORMATS, build_graph, render

__all__ = ["add_parser", "run_graph", "read_report"]

MODEL = ModelArgs()
COMPILE = CompileArgs(default_level="3")
OUTPUT = OutputArgs(
    "write the picture to FILE (its suffix names the format); default: DOT on stdout",
    formats=FORMATS,
    format_help="svg, png or dot (default: from -o's suffix)",
)


def add_parser(commands) -> None:
    p = commands.add_parser(
        "graph",
        help="draw the FX graph beside the optimized IR (svg, png, dot)",
        description="Draw TARGET's FX graph and its optimized IR side by side: an edge "
        "from each FX node to the op computing it, fused kernels and decomposed nodes "
        "as boxes, clusters per nn.Module; coloured by a diff report with --diff.",
    )
    MODEL.add_to(p)
    for action in p._actions:  # MODEL's positional reads TARGET here, as in `tui`
        if action.dest == "model":
            action.metavar = "TARGET"
            action.help = "a .cuvilir file, path/to/model.py or package.module:attr"
    COMPILE.add_to(p)
    OUTPUT.add_to(p)
    p.add_argument(
        "--diff",
        metavar="JSON",
        help="colour by this report of `cuvil-debug diff MODEL --format json`",
    )
    p.add_argument(
        "--collapse",
        type=_depth,
        metavar="DEPTH",
        help="draw each nn.Module at DEPTH (layer1 is 1, layer1.0 is 2) as one node",
    )
    p.add_argument(
        "--function", metavar="NAME", help="the IR function (default: the entry)"
    )
    add_limit(p)
    p.set_defaults(run=run_graph)


def _depth(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a depth (1, 2, ...)")
    return int(text)


def run_graph(args: argparse.Namespace) -> int:
    output = OUTPUT.parse(args)
    fmt = output_format(output.format, output.path)
    output.check()
    report = read_report(args.diff) if args.diff else None
    module, _ = load_target(args)
    rows = None if report or args.model.endswith(".cuvilir") else _fx_rows(args)
    graph = build_graph(
        module, rows, report, args.function, collapse_depth=args.collapse
    )
    output.write(render(graph, fmt))
    return 0


def output_format(given: str | None, path: str | None) -> str:
    """--format, else the suffix of -o (.svg/.png/.dot/.gv), else dot on stdout."""
    to_stdout = path is None or path == "-"
    if given is None and not to_stdout:
        given = {".gv": "dot"}.get(Path(path).suffix.lower(), Path(path).suffix[1:])
        if given.lower() not in FORMATS:
            raise CuvilError(
                f"cannot tell the format of '{path}' from its suffix: name it .svg, "
                ".png or .dot, or pass --format"
            )
        given = given.lower()
    if given == "png" and to_stdout:
        raise CuvilError("a PNG is binary: write it to a file with -o FILE.png")
    return given or "dot"


def read_report(path: str) -> DiffReport:
    """The diff report in `path` (JSON); a missing, malformed or invalid one is one
    CuvilError line."""
    import jsonschema

    from ..diff.render.json import report_from_json

    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
        return report_from_json(doc)
    except OSError as e:
        raise CuvilError(f"cannot read diff report '{path}': {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise CuvilError(f"'{path}' is not JSON: {e}") from e
    except jsonschema.ValidationError as e:
        where = "/".join(map(str, e.absolute_path)) or "the document"
        raise CuvilError(
            f"'{path}' is not a diff report of `cuvil-debug diff --format json` "
            f"({where}: {e.message.splitlines()[0][:120]})"
        ) from e


def _fx_rows(args: argparse.Namespace) -> list[NodeRow]:
    """The FX nodes, traced and run eagerly (their shapes) as the diff does."""
    from ..diff.capture import capture

    model = MODEL.parse(args)
    loaded = model.load()
    return capture(loaded.model, loaded.inputs, model.frontend).rows
