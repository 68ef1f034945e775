"""The labelled failure corpus (samples/failures/labels.json): collect its records and
score the classifier against the labels (top-1 category, root line in the top 3)."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path

from .classify import Diagnosis, classify
from .runner import Job, run_jobs
from .source import _header, index_file

__all__ = [
    "Outcome",
    "collect_corpora",
    "collect_corpus",
    "evaluate",
    "expected_roots",
    "load_labels",
]


@dataclass(frozen=True)
class Outcome:
    file: str
    expected: str
    got: str
    confidence: float
    root_expected: tuple[tuple[str, int], ...]  # acceptable (path suffix, line)s
    roots: tuple[tuple[str, int], ...]  # the top-3 candidates (file, line)
    ends: tuple[int, ...] = ()  # each candidate statement's last line (its header's)

    @property
    def category_ok(self) -> bool:
        return self.expected == self.got

    @property
    def root_ok(self) -> bool:
        ends = self.ends or tuple(line for _, line in self.roots)
        return any(  # a label may name any line of a multi-line statement
            line <= want <= end and _same_file(file, path)
            for (file, line), end in zip(self.roots, ends, strict=True)
            for path, want in self.root_expected
        )


def _end(file: str, line: int) -> int:
    """The last line of the statement at `line` (of its header, for if/for/def)."""
    index = index_file(file)
    stmt = index.stmts.get(line) if index else None
    if stmt is None:
        return line
    parts = _header(stmt.node) or [stmt.node]
    if isinstance(stmt.node, ast.FunctionDef | ast.ClassDef):
        return line
    return max(getattr(p, "end_lineno", line) or line for p in parts)


def _same_file(file: str, path: str) -> bool:
    """`path` is the sample's own name or a path below site-packages."""
    return Path(file).as_posix().endswith("/" + path) or Path(file).name == path


def expected_roots(name: str, label: dict) -> tuple[tuple[str, int], ...]:
    """A label's root causes: `root_line` (a line of the sample) or `root`, a list of
    `PATH:LINE` (PATH below site-packages, e.g. transformers/models/..., or the
    sample's file name)."""
    if "root_line" in label:
        return ((name, int(label["root_line"])),)
    return tuple(
        (path, int(line)) for path, line in (r.rsplit(":", 1) for r in label["root"])
    )


def load_labels(folder: Path) -> dict[str, dict]:
    """The labelled failures of a folder, less those marked `fixed` (see fixed_labels)."""
    return {n: lab for n, lab in _all_labels(folder).items() if "fixed" not in lab}


def fixed_labels(folder: Path) -> dict[str, dict]:
    """Samples that were Cuvil's own bugs (compiler-internal-error) and compile since a
    fix: `"fixed": "COMMIT what fixed it"`. They are no longer failures to triage, but
    each still compiles (tests/cuvil_debug/triage/test_corpus.py), so they stay as
    regression samples."""
    return {n: lab for n, lab in _all_labels(folder).items() if "fixed" in lab}


def _all_labels(folder: Path) -> dict[str, dict]:
    return json.loads((folder / "labels.json").read_text())


def collect_corpus(folder: Path, workers: int = 2, timeout: float = 60.0) -> dict:
    """file name -> triage record, captured with each label's frontend."""
    return collect_corpora([folder], workers, timeout)[folder]


def collect_corpora(
    folders: list[Path], workers: int = 2, timeout: float = 60.0, labels=load_labels
) -> dict[Path, dict]:
    """Several labelled folders, each in a pool of workers of its own: a sample's
    libraries can leave torch changed for the next model in the same process (after
    the other sets, torchkbnufft's TorchScript no longer compiled at import), and one
    set's samples share their libraries. `labels(folder)` picks the samples
    (fixed_labels: the fixed ones)."""
    out: dict[Path, dict] = {}
    for f in folders:
        keys = sorted(labels(f).items())
        jobs = [
            Job(
                i,
                str(f / n),
                lab.get("frontend", "fx"),
                cuvil_leaves=lab.get("leaves") == "cuvil",
                no_grad=bool(lab.get("no_grad")),
            )
            for i, (n, lab) in enumerate(keys)
        ]
        got = run_jobs(jobs, workers, timeout)
        out[f] = {n: record for (n, _), record in zip(keys, got, strict=True)}
    return out


def evaluate(labels: dict[str, dict], records: dict[str, dict]) -> list[Outcome]:
    return [_outcome(name, labels[name], records[name]) for name in sorted(labels)]


def _outcome(name: str, label: dict, record: dict) -> Outcome:
    want = expected_roots(name, label)
    if record.get("status") != "failed":
        return Outcome(
            name, label["category"], f"<{record.get('status')}>", 0.0, want, ()
        )
    d: Diagnosis = classify(record)
    return Outcome(
        name,
        label["category"],
        d.category,
        d.confidence,
        want,
        tuple((c.file, c.line) for c in d.roots),
        tuple(_end(c.file, c.line) for c in d.roots),
    )
