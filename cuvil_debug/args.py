"""The toolkit's command-line argument groups, each declared once (Polygraphy's
``tools/args`` model: ``add_to(parser)``, ``parse(args)`` -> a typed value).

The compiler's groups (``cuvil.args``: what to build, pass instrumentation, output) are
re-exported here; the toolkit adds the model and what a check injects and tolerates:

    ModelArgs      MODEL, --frontend, --entry -> ModelChoice
                   (ir, passes, diff, bisect, reduce, triage)
    CompileArgs    -O, --no-fusion, -p/--pipeline [, --threads] -> CompileOptions
                   (passes, opt; diff, bisect, reduce with --threads)
    PassDebugArgs  --print-after-all/-change, --bisect-limit, --snapshot-dir
                   -> DebugOptions (passes, opt)
    CheckArgs      --inject, --rtol, --atol -> Check (diff, bisect, reduce)
    OutputArgs     [--format] -o/--output [--dot] [--force] -> Output
                   (ir, opt, diff, reduce, triage)
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from cuvil.args import CompileArgs, Output, OutputArgs, PassDebugArgs
from cuvil.argtypes import non_negative_float

from .loader import LoadedModel, load_model

__all__ = [
    "ModelArgs",
    "ModelChoice",
    "CheckArgs",
    "Check",
    "CompileArgs",
    "PassDebugArgs",
    "OutputArgs",
    "Output",
]


@dataclass(frozen=True)
class ModelChoice:
    """The model spec(s) given, the --entry and the --frontend to capture with."""

    specs: tuple[str, ...]
    entry: str | None
    frontend: str = "fx"

    @property
    def spec(self) -> str:
        return self.specs[0]

    def load(self) -> LoadedModel:
        return load_model(self.spec, self.entry)


class ModelArgs:
    """MODEL (``many``: one or more), ``--frontend`` and ``--entry`` -> ModelChoice."""

    def __init__(
        self, *, many: bool = False, frontends: tuple[str, ...] = ("fx", "export")
    ) -> None:
        self.many = many
        self.frontends = frontends

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "models" if self.many else "model",
            nargs="+" if self.many else None,
            metavar="MODEL",
            help="path/to/model.py (defining Model and example_inputs())"
            + (", a directory of them," if self.many else "")
            + " or package.module:attr",
        )
        parser.add_argument(
            "--frontend",
            choices=list(self.frontends),
            default="fx",
            help="capture with "
            + (
                "torch.fx symbolic tracing or torch.export"
                if self.frontends == ("fx", "export")
                else ", ".join(self.frontends)
            )
            + " (default: fx)",
        )
        parser.add_argument(
            "--entry",
            metavar="NAME",
            help="the model class or zero-argument factory (default: Model)",
        )

    def parse(self, args: argparse.Namespace) -> ModelChoice:
        specs = tuple(args.models) if self.many else (args.model,)
        return ModelChoice(specs, args.entry, args.frontend)


@dataclass(frozen=True)
class Check:
    """The faults to inject (``--inject`` specs) and the tolerances given on the
    command line (None: the default)."""

    inject: tuple[str, ...] = ()
    rtol: float | None = None
    atol: float | None = None

    @property
    def tol(self) -> dict[str, float]:
        """The given tolerances as keywords (``rtol=``, ``atol=``)."""
        given = (("rtol", self.rtol), ("atol", self.atol))
        return {k: v for k, v in given if v is not None}


class CheckArgs:
    """``--inject SPEC`` (repeatable), ``--rtol``, ``--atol`` -> Check."""

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--inject",
            action="append",
            default=[],
            metavar="SPEC",
            help="inject a deliberate bug, STAGE:NODE[:EFFECT] (docs/FAULTS.md); "
            "repeatable",
        )
        parser.add_argument(
            "--rtol",
            type=non_negative_float,
            help="relative tolerance for every float dtype (>= 0)",
        )
        parser.add_argument(
            "--atol",
            type=non_negative_float,
            help="absolute tolerance for every float dtype (>= 0)",
        )

    def parse(self, args: argparse.Namespace) -> Check:
        return Check(tuple(args.inject), args.rtol, args.atol)
