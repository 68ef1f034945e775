"""The triage driver: expand model specs, capture each (isolated), diagnose, and
compare with a baseline. One named function per step."""

from __future__ import annotations

import glob
import json
from collections.abc import Sequence
from pathlib import Path

from .results import SCHEMA, STATUSES, to_result
from .runner import Job, run_in_process, run_jobs

# seconds per model: torchvision's detection models capture in seconds once the eager
# check runs without dynamo (collect._run_eager); the slowest model of the library
# corpus (samples/failures/library) is far below this on a loaded 2-core machine
DEFAULT_TIMEOUT = 300.0

__all__ = [
    "DEFAULT_TIMEOUT",
    "expand_specs",
    "is_glob",
    "triage",
    "new_failures",
    "load_baseline",
    "report_doc",
    "summary",
]


def triage(
    specs: Sequence[str],
    frontend: str = "fx",
    entry: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    workers: int = 2,
    isolate: bool = True,
    stage: str = "lower",
    *,
    cuvil_leaves: bool = False,
    no_grad: bool = False,
    static: bool = False,
    max_memory: int | None = None,
    executor: str = "local",
    address: str | None = None,
) -> list[dict]:
    """One result per model spec, in order (`cuvil_leaves`: trace with Cuvil's fx
    leaves; `no_grad`: capture under torch.no_grad(); `static`: predict from the
    source alone, in this process, never importing or running the model files,
    static.py; `max_memory`: bytes each worker may map beyond its start;
    `executor` "ray": each model a Ray task on the cluster at `address`, the same
    per-model job as the local workers, ray_executor.py)."""
    if static:
        from .static import static_result

        return [static_result(s, frontend, entry) for s in expand_specs(specs)]
    jobs = [
        Job(i, s, frontend, entry, stage, cuvil_leaves=cuvil_leaves, no_grad=no_grad)
        for i, s in enumerate(expand_specs(specs))
    ]
    if not isolate:
        records = run_in_process(jobs)
    elif executor == "ray":
        from .ray_executor import run_ray

        records = run_ray(jobs, address, workers, timeout, max_memory)
    else:
        records = run_jobs(jobs, workers, timeout, max_memory)
    return [to_result(r) for r in records]


def expand_specs(specs: Sequence[str]) -> list[str]:
    """Directories become their .py files (not `_private.py` nor `__init__.py`); a
    glob (`models/**/*.py`, quoted so the shell leaves it) the files it matches."""
    out = []
    for spec in specs:
        path = Path(spec)
        if is_glob(spec):
            out += sorted(
                p for p in glob.glob(spec, recursive=True) if Path(p).is_file()
            )
        elif path.is_dir():
            out += [
                str(p) for p in sorted(path.rglob("*.py")) if not p.name.startswith("_")
            ]
        else:
            out.append(spec)
    return out


def is_glob(spec: str) -> bool:
    return any(c in spec for c in "*?[")


def report_doc(
    results: list[dict], frontend: str, stage: str = "lower", mode: str = "capture"
) -> dict:
    """The versioned JSON document (`--format json`); `mode` is "capture" or
    "static" (predicted from the source, see docs/TRIAGE.md)."""
    from cuvil import __version__

    return {
        "schema": SCHEMA,
        "tool": {"name": "cuvil-debug triage", "version": __version__},
        "frontend": frontend,
        "stage": stage,
        "mode": mode,
        "summary": summary(results),
        "results": results,
    }


def summary(results: list[dict]) -> dict:
    """The report's counts: total, and how many of each status."""
    counts = {s: sum(r["status"] == s for r in results) for s in STATUSES}
    return {"total": len(results), **counts}


def load_baseline(path: str) -> set[tuple[str, str]]:
    """(model, category-or-status) pairs already known to fail."""
    doc = json.loads(Path(path).read_text())
    if doc.get("schema") != SCHEMA:
        raise ValueError(
            f"{path}: not a triage report (schema {doc.get('schema')!r}, "
            f"expected {SCHEMA!r})"
        )
    return {_key(r) for r in doc["results"] if r["status"] != "ok"}


def new_failures(
    results: list[dict], baseline: set[tuple[str, str]] | None
) -> list[dict]:
    bad = [r for r in results if r["status"] != "ok"]
    return bad if baseline is None else [r for r in bad if _key(r) not in baseline]


def _key(result: dict) -> tuple[str, str]:
    model = Path(result["model"]).as_posix() if result.get("model") else ""
    return model, result.get("category") or result["status"]
