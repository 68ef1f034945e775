"""More than one input batch: the user's real batch (``--inputs FILE.pt``) and random
batches drawn like the example inputs (``--trials N``).

A divergence that only some inputs trigger (a fault that fires for negative values, an
overflow on large ones) is missed by a diff of one batch. ``run_diff(..., batches=)``
diffs every batch with the same builds (capture, lower, passes and native code are done
once; each batch gets its eager values, its float64 truth and the three stages), keeps
the worst and reports it, with one line per batch in ``report.trials``. The worst batch
is the one that diverges (a node the judge fails), then the one whose value came closest
to failing (the largest error over its bound). A diverging batch drawn at random is
saved (``torch.save({"inputs": (...), "source": ...})``) so that ``reduce --inputs`` and
``bisect --inputs`` reproduce it.

Drawing "like the example": the same shapes and dtypes; a float tensor normal with the
example tensor's mean and standard deviation, an integer one uniform between its min
and max, a bool one with its fraction of True; trial k uses the generator seeded
``seed + k``, so a trial is reproducible from its number.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from cuvil.errors import CuvilError

from .capture import recapture
from .explain import first_divergence

if TYPE_CHECKING:
    from .engine import DiffRun

__all__ = [
    "Batch",
    "draw",
    "batches_for",
    "load_inputs",
    "save_inputs",
    "diff_batches",
]

SAVED_NAME = "cuvil-diff-inputs"


@dataclass(frozen=True)
class Batch:
    """Inputs for one diff of the model, and where they came from."""

    inputs: tuple[torch.Tensor, ...]
    source: str  # "example inputs", "batch.pt", "trial 3 (seed 3)"
    drawn: bool = False  # random: saved when it diverges


def draw(example: Sequence[torch.Tensor], n: int, seed: int = 0) -> list[Batch]:
    """`n` random batches like `example` (see the module docstring)."""
    out = []
    for k in range(n):
        g = torch.Generator().manual_seed(seed + k)
        inputs = tuple(_like(x, g) for x in example)
        out.append(Batch(inputs, f"trial {k + 1} (seed {seed + k})", drawn=True))
    return out


def _like(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    if x.is_floating_point() and x.numel():
        x64 = x.detach().to(torch.float64)
        mean = float(x64.mean())
        std = float(x64.std()) if x.numel() > 1 else 1.0
        std = std if math.isfinite(std) and std > 0 else 1.0
        noise = torch.randn(x.shape, generator=g, dtype=torch.float64)
        return (noise * std + mean).to(x.dtype)
    if x.dtype == torch.bool and x.numel():
        frac = float(x.to(torch.float64).mean())
        return torch.rand(x.shape, generator=g, dtype=torch.float64) < frac
    if not x.is_floating_point() and not x.is_complex() and x.numel():
        lo, hi = int(x.min()), int(x.max())
        return torch.randint(lo, hi + 1, x.shape, generator=g, dtype=x.dtype)
    return x.detach().clone()


def batches_for(
    inputs: Sequence[torch.Tensor], source: str, trials: int, seed: int = 0
) -> list[Batch]:
    """The batches a diff with ``--trials`` runs: `inputs` first, then `trials` drawn
    like them (no batches, i.e. one plain diff, without trials)."""
    if trials <= 0:
        return []
    return [Batch(tuple(inputs), source), *draw(inputs, trials, seed)]


def load_inputs(path: str | os.PathLike) -> tuple[torch.Tensor, ...]:
    """The input batch in a ``.pt`` file: a tensor, a list or tuple of tensors (the
    forward's arguments), or a dict with ``"inputs"`` (what the diff and reduce save)."""
    try:
        data = torch.load(path, weights_only=True)
    except FileNotFoundError:
        raise CuvilError(f"--inputs '{path}' does not exist") from None
    except Exception as e:  # noqa: BLE001 - a user's file: say what it is not
        raise CuvilError(
            f"--inputs '{path}' is not a torch.save file of tensors "
            f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})",
            hint="save the batch with torch.save((x,), 'batch.pt') (tensors only)",
        ) from None
    if isinstance(data, dict):
        data = data.get("inputs")
    if isinstance(data, torch.Tensor):
        data = (data,)
    if not isinstance(data, list | tuple) or not all(
        isinstance(t, torch.Tensor) for t in data
    ):
        raise CuvilError(
            f"--inputs '{path}' holds no tensors (a tensor, a tuple of tensors, or "
            '{"inputs": (...)} is expected)',
            hint="save the batch with torch.save((x,), 'batch.pt')",
        )
    return tuple(data)


def save_inputs(batch: Batch, path: str | os.PathLike | None = None) -> Path:
    """Save `batch` for ``--inputs`` to `path` (replaced if it exists: the command
    line asked for --force), else to a new ``cuvil-diff-inputs*.pt`` in the current
    folder (an existing file is never replaced)."""
    mode = "wb" if path is not None else "xb"
    if path is None:
        for k in range(1000):
            path = Path(f"{SAVED_NAME}{'' if k == 0 else f'-{k}'}.pt")
            if not path.exists():
                break
    path = Path(path)
    data = {"inputs": tuple(t.detach().clone() for t in batch.inputs)}
    data["source"] = batch.source
    try:
        with open(path, mode) as f:
            torch.save(data, f)
    except FileExistsError:
        raise CuvilError(
            f"'{path}' already exists: the diverging batch was not saved",
            hint="give --save-inputs a new file name",
        ) from None
    return path


def diff_batches(run: DiffRun, batches: Sequence[Batch], save_to=None) -> None:
    """Diff every batch with `run`'s builds; leave `run` on the worst one, its
    report listing them all (``report.trials``)."""
    rows: list[dict[str, Any]] = []
    best, best_key, chosen = None, None, 0
    for k, batch in enumerate(batches):
        run.clock.start(f"batch {k + 1}/{len(batches)}: {batch.source}")
        same = k == 0 and all(a is b for a, b in zip(batch.inputs, run.cap.inputs))
        run.reset(run.cap if same else recapture(run.cap, batch.inputs), batch.source)
        run.clock.lap("capture")
        run.measure()
        run.gather()
        row, key = _summary(run, k, batch)
        rows.append(row)
        if best_key is None or key > best_key:
            best, best_key, chosen = _state(run), key, k
    _restore(run, best)
    rows[chosen]["chosen"] = True
    run.report.trials = rows
    batch = batches[chosen]
    if rows[chosen]["diverged"] and batch.drawn:
        run.report.saved_inputs = str(save_inputs(batch, save_to))


def _summary(run: DiffRun, k: int, batch: Batch) -> tuple[dict[str, Any], tuple]:
    """One batch's line in ``report.trials`` and its rank (bigger: worse)."""
    report = run.report
    first = first_divergence(report)
    worst, where = 0.0, None
    for r in report.rows:
        for stage, s in r.stages.items():
            for mode, m in (("isolated", s.isolated), ("propagated", s.propagated)):
                x = _excess(m)
                if x is not None and (where is None or x > worst):
                    worst, where = x, f"{r.name} in {stage} ({mode})"
    diverged = report.diverged or not all(report.outputs_ok.values())
    row = {
        "index": k,
        "source": batch.source,
        "diverged": diverged,
        "first": f"{first.node} ({first.stage})" if first else None,
        "worst": where,
        "excess": worst,
        "chosen": False,
    }
    return row, (diverged, first is not None, worst)


def _excess(m) -> float | None:
    if m is None:
        return None
    if not m.shape_ok or m.nan or m.inf:
        return math.inf
    return m.excess if m.excess is not None else (0.0 if m.ok else math.inf)


_STATE = ("cap", "maps", "twin", "report", "expected", "meter", "input_source")


def _state(run: DiffRun) -> dict[str, Any]:
    return {name: getattr(run, name) for name in _STATE}


def _restore(run: DiffRun, state: dict[str, Any]) -> None:
    for name, value in state.items():
        setattr(run, name, value)
