"""Triage speed: wall time to triage 100 failing models (the corpus, repeated) with
worker processes, and classification time per model (records already collected).

    .venv/bin/python benchmarks/bench_triage.py [--models 100] [--jobs 2] [--folder F]

Targets (issue #6): under 60 s for 100 models; under 50 ms to classify one model.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from cuvil_debug.triage.classify import classify
from cuvil_debug.triage.results import to_result
from cuvil_debug.triage.runner import Job, run_jobs
from cuvil_debug.triage.source import index_file

CORPUS = Path(__file__).resolve().parents[1] / "samples" / "failures"


def jobs(n: int, folder: Path = CORPUS) -> list[Job]:
    labels = json.loads((folder / "labels.json").read_text())
    names = sorted(labels)
    picks = [names[i % len(names)] for i in range(n)]
    return [
        Job(
            i,
            str(folder / p),
            labels[p].get("frontend", "fx"),
            cuvil_leaves=labels[p].get("leaves") == "cuvil",
        )
        for i, p in enumerate(picks)
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument(
        "--folder",
        type=Path,
        default=CORPUS,
        help="a labelled folder (samples/failures/library: real library models)",
    )
    args = ap.parse_args()
    start = time.perf_counter()
    records = run_jobs(jobs(args.models, args.folder), workers=args.jobs, timeout=300)
    results = [to_result(r) for r in records]
    total = time.perf_counter() - start
    failed = sum(r["status"] == "failed" for r in results)
    print(
        f"triaged {len(results)} models ({failed} failing) with {args.jobs} workers "
        f"in {total:.1f} s ({total / len(results) * 1000:.0f} ms/model wall)"
    )
    cold, warm = classify_times([r for r in records if r.get("status") == "failed"])
    print(
        f"classification per model: {cold:.1f} ms cold (parsing sources), "
        f"{warm:.1f} ms warm (sources cached)"
    )


def classify_times(records: list[dict]) -> tuple[float, float]:
    index_file.cache_clear()
    times = []
    for _ in range(2):
        start = time.perf_counter()
        for r in records:
            classify(r)
        times.append((time.perf_counter() - start) / len(records) * 1000)
    return times[0], times[1]


if __name__ == "__main__":
    main()
