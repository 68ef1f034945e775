"""The labelled failure corpus (samples/failures/labels.json): collect its records and
score the classifier against the labels (top-1 category, root line in the top 3)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .classify import Diagnosis, classify
from .runner import Job, run_jobs

__all__ = ["Outcome", "collect_corpora", "collect_corpus", "evaluate", "load_labels"]


@dataclass(frozen=True)
class Outcome:
    file: str
    expected: str
    got: str
    confidence: float
    root_expected: int
    roots: tuple[int, ...]

    @property
    def category_ok(self) -> bool:
        return self.expected == self.got

    @property
    def root_ok(self) -> bool:
        return self.root_expected in self.roots


def load_labels(folder: Path) -> dict[str, dict]:
    return json.loads((folder / "labels.json").read_text())


def collect_corpus(folder: Path, workers: int = 2, timeout: float = 60.0) -> dict:
    """file name -> triage record, captured with each label's frontend."""
    return collect_corpora([folder], workers, timeout)[folder]


def collect_corpora(
    folders: list[Path], workers: int = 2, timeout: float = 60.0
) -> dict[Path, dict]:
    """Several labelled folders in one pool of workers (one torch import each)."""
    keys = [(f, n, lab) for f in folders for n, lab in sorted(load_labels(f).items())]
    jobs = [
        Job(
            i,
            str(f / n),
            lab.get("frontend", "fx"),
            cuvil_leaves=lab.get("leaves") == "cuvil",
            no_grad=bool(lab.get("no_grad")),
        )
        for i, (f, n, lab) in enumerate(keys)
    ]
    out: dict[Path, dict] = {f: {} for f in folders}
    for (f, n, _), record in zip(keys, run_jobs(jobs, workers, timeout), strict=True):
        out[f][n] = record
    return out


def evaluate(labels: dict[str, dict], records: dict[str, dict]) -> list[Outcome]:
    return [_outcome(name, labels[name], records[name]) for name in sorted(labels)]


def _outcome(name: str, label: dict, record: dict) -> Outcome:
    if record.get("status") != "failed":
        return Outcome(
            name,
            label["category"],
            f"<{record.get('status')}>",
            0.0,
            label["root_line"],
            (),
        )
    d: Diagnosis = classify(record)
    return Outcome(
        name,
        label["category"],
        d.category,
        d.confidence,
        label["root_line"],
        tuple(c.line for c in d.roots),
    )
