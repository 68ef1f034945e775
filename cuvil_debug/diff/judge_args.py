"""The command-line group of the judge and the inputs, shared by ``diff``, ``bisect``
and ``reduce`` (each declared once, ``add_to(parser)`` / ``parse(args)``):

    --judge float64|normwise   the rule (judge.py; default float64)
    --factor K                 the float64 judge's multiple of eager's error
    --elementwise              float64: max abs error; normwise: torch.allclose
    --inputs FILE.pt           the batch to check instead of the example inputs
    --trials N, --seed S       (diff) N more batches drawn like the inputs
    --save-inputs FILE         (diff) where a diverging drawn batch is saved
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import torch

from cuvil.argtypes import count, existing_file, positive_float
from cuvil.errors import CuvilError

from .judge import FACTORS, JUDGES, MAX_FACTORS, Judge

__all__ = ["JudgeArgs", "JudgeChoice", "model_inputs"]


@dataclass(frozen=True)
class JudgeChoice:
    """What the judge and inputs options say."""

    judge: str = "float64"
    factor: float | None = None
    elementwise: bool = False
    inputs: str | None = None
    trials: int = 0
    seed: int = 0
    save_inputs: str | None = None

    def float64(self) -> Judge | None:
        """The float64 rule to pass to bisect / reduce (None: normwise)."""
        if self.judge != "float64":
            return None
        return Judge.with_factor(self.factor, self.elementwise)


class JudgeArgs:
    """The group; `trials`: with --trials, --seed and --save-inputs (diff)."""

    def __init__(self, trials: bool = False) -> None:
        self.trials = trials

    def add_to(self, p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--judge",
            choices=JUDGES,
            default="float64",
            help="float64 (default): a value fails when it is further from a float64 "
            "run of the model than eager-float32 is, times --factor; normwise: "
            "max|a-b| <= atol + rtol*max|eager| (docs/DIFF.md)",
        )
        p.add_argument(
            "--factor",
            type=positive_float,
            metavar="K",
            help="the float64 judge's multiple of eager's error (default "
            f"{FACTORS['f32']:g}, with --elementwise {MAX_FACTORS['f32']:g})",
        )
        p.add_argument(
            "--elementwise",
            action="store_true",
            help="float64: judge the max abs error (default: RMSE); normwise: hold "
            "every element to atol + rtol*|eager|",
        )
        p.add_argument(
            "--inputs",
            type=existing_file,
            metavar="FILE.pt",
            help="check on this batch instead of the example inputs (torch.save of a "
            "tensor, a tuple of tensors or {'inputs': (...)})",
        )
        if not self.trials:
            return
        p.add_argument(
            "--trials",
            type=count,
            default=0,
            metavar="N",
            help="also diff N random batches drawn like the inputs; the report is the "
            "worst batch's, and a diverging one is saved for reduce --inputs",
        )
        p.add_argument(
            "--seed",
            type=count,
            default=0,
            metavar="S",
            help="trial k draws with seed S+k",
        )
        p.add_argument(
            "--save-inputs",
            metavar="FILE.pt",
            help="where a diverging drawn batch is saved (default: a new "
            "cuvil-diff-inputs*.pt here)",
        )

    def parse(self, args: argparse.Namespace) -> JudgeChoice:
        choice = JudgeChoice(
            args.judge,
            args.factor,
            args.elementwise,
            args.inputs,
            getattr(args, "trials", 0),
            getattr(args, "seed", 0),
            getattr(args, "save_inputs", None),
        )
        if choice.save_inputs:
            _check_save(Path(choice.save_inputs), getattr(args, "force", False))
        return choice


def _check_save(path: Path, force: bool) -> None:
    """--save-inputs names a file that can be written (and is not replaced unless
    --force): said before any work."""
    if path.is_dir():
        raise CuvilError(
            f"--save-inputs '{path}' is a folder", hint="name a .pt file to write"
        )
    if not path.parent.is_dir():
        raise CuvilError(
            f"--save-inputs '{path}': the folder '{path.parent}' does not exist",
            hint="create it first, or name a file in an existing folder",
        )
    if path.exists() and not force:
        raise CuvilError(
            f"--save-inputs '{path}' already exists",
            hint="pass --force to overwrite it, or name a new file",
        )


def model_inputs(loaded, choice: JudgeChoice) -> tuple[tuple[torch.Tensor, ...], str]:
    """The batch to check (the example inputs, or --inputs) and what it is."""
    if choice.inputs is None:
        return tuple(loaded.inputs), "example inputs"
    from .trials import load_inputs

    inputs = load_inputs(choice.inputs)
    if len(inputs) != len(loaded.inputs):
        raise CuvilError(
            f"--inputs '{choice.inputs}' holds {len(inputs)} tensor(s); the model's "
            f"example inputs are {len(loaded.inputs)}",
            hint="save one tensor per forward() argument, in order",
        )
    return inputs, choice.inputs
