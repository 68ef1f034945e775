"""``cuvil-debug quant MODEL --calib N``: how much accuracy int8 (or bf16) costs, layer
by layer, and whether an error is quantization's or a bug (measure.py)."""

from __future__ import annotations

import argparse

from cuvil.args import EXIT_OK, OutputArgs
from cuvil.argtypes import count, finite_float, positive_int
from cuvil.errors import CuvilError
from cuvil.options import QUANT_ISAS, QuantOptions

from ..args import ModelArgs
from .measure import generate, measure
from .render import render_json, render_text

__all__ = ["add_parser", "run_quant"]

MODEL = ModelArgs()
OUTPUT = OutputArgs(
    "write the report to FILE instead of stdout",
    formats=("table", "json"),
    default_format="table",
    format_help="table (default) or json",
)
EXIT_BELOW = 1


def add_parser(commands) -> None:
    p = commands.add_parser(
        "quant",
        help="per-layer accuracy of an int8 / bf16 build against float, ranked",
        description="Quantize a model (calibrating on N generated batches), run it "
        "natively, as the fake-quant model and in float, and report the output's and "
        "every layer's error (SQNR, max abs, cosine), ranked by what each layer costs "
        "alone. --skip leaves layers in float32. Exit 1 when --min-sqnr is not met.",
    )
    MODEL.add_to(p)
    p.add_argument(
        "--calib",
        type=positive_int,
        default=8,
        metavar="N",
        help="generated calibration batches (default 8)",
    )
    p.add_argument(
        "--eval",
        type=positive_int,
        default=4,
        metavar="N",
        help="generated evaluation batches (default 4)",
    )
    p.add_argument("--mode", choices=("int8", "bf16"), default="int8")
    p.add_argument(
        "--dynamic",
        action="store_true",
        help="int8 activations quantized at run time (no calibration)",
    )
    p.add_argument(
        "--skip",
        action="append",
        default=[],
        metavar="LAYER",
        help="leave LAYER (an FX node or module path) in float32; repeatable",
    )
    p.add_argument("--activations", choices=("affine", "symmetric"), default="affine")
    p.add_argument("--calibration", choices=("minmax", "percentile"), default="minmax")
    p.add_argument("--isa", choices=QUANT_ISAS, default="auto")
    p.add_argument("--seed", type=count, default=0, help="of the generated data")
    p.add_argument(
        "--min-sqnr",
        type=finite_float,
        metavar="DB",
        help="exit 1 when the output's SQNR is below DB",
    )
    p.add_argument(
        "--no-native-layers",
        action="store_true",
        help="skip the per-kernel native check (one build less)",
    )
    OUTPUT.add_to(p)
    p.set_defaults(run=run_quant)


def run_quant(args: argparse.Namespace) -> int:
    output = OUTPUT.parse(args)
    output.check()
    if args.dynamic and args.mode != "int8":
        raise CuvilError("--dynamic is for --mode int8")
    opts = QuantOptions.parse(
        {
            "mode": args.mode,
            "dynamic": args.dynamic,
            "skip": args.skip,
            "activations": args.activations,
            "calibration": args.calibration,
            "isa": args.isa,
        }
    )
    choice = MODEL.parse(args)
    loaded = choice.load()
    static = opts.mode == "int8" and not opts.dynamic
    calib = generate(loaded.inputs, args.calib, args.seed) if static else []
    evals = generate(loaded.inputs, args.eval, args.seed + 1)
    report = measure(
        loaded.model,
        loaded.inputs,
        opts,
        calib,
        evals,
        loaded.source,
        choice.frontend,
        native_layers=not args.no_native_layers,
    )
    text = render_json(report) if output.format == "json" else render_text(report)
    output.write(text)
    below = args.min_sqnr is not None and report.output.sqnr_db < args.min_sqnr
    return EXIT_BELOW if below else EXIT_OK
