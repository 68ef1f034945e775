"""Leave-one-set-out estimate of how triage does on a set it was not tuned on.

Each row of the PATTERNS table names the labelled set it was written from
(`Pattern.origin`). For every set written blind (swept and labelled by someone who
never ran triage), this scores it three ways:

- **first sight**: the classifier as it was before any rule was written from it
  (benchmarks/data/triage_first_sight.json, scripts/triage_first_sight.py): what the
  one unseen measurement gave, under today's labels;
- **without its rules**: today's classifier minus the rows written from that set (and
  so with every rule written from the other sets, before and after it);
- **now**: today's classifier.

"without its rules" is the estimate for the next unseen set: it keeps the rules other
sets taught (so it says how far they carry to a new library), and drops the set's own.
It is optimistic by what the rows cannot carry: the line facts, the failing-line finder
and the value flow that were also changed for a set stay in. The transfer table says,
for each origin, how many samples of *other* sets its rows decide (a row that decides
only its own set's samples is an idiom; one that decides others' is a mechanism).

    .venv/bin/python scripts/triage_loso.py [--records FILE]

`--records FILE` keeps the captured records in a pickle (written on the first run,
read on later ones), so the classification can be re-scored without recapturing.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
FAILURES = ROOT / "samples" / "failures"
FIRST_SIGHT = ROOT / "benchmarks" / "data" / "triage_first_sight.json"
SETS = ["failures", "heldout", "written", "library", "timm"] + [
    f"zoo{n}" for n in ("", 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, *range(15, 28))
]
BLIND = ["library", "timm", "zoo"] + [
    f"zoo{n}" for n in (*range(3, 11), 12, 13, *range(15, 28))
]


def folder(name: str) -> Path:
    return FAILURES if name == "failures" else FAILURES / name


def records(path: str | None) -> dict[str, dict]:
    """set name -> {file name -> record}, captured now or read from `path`."""
    if path and Path(path).exists():
        return pickle.loads(Path(path).read_bytes())
    from cuvil_debug.triage.corpus import collect_corpora

    got = collect_corpora([folder(s) for s in SETS], workers=2, timeout=300)
    out = {s: got[folder(s)] for s in SETS}
    if path:
        Path(path).write_bytes(pickle.dumps(out))
    return out


def predictions(recs: dict, without: str | None) -> dict[str, dict[str, str]]:
    """set -> file -> category, with the rows written from `without` left out."""
    import importlib

    from cuvil_debug.triage.patterns import PATTERNS

    classify = importlib.import_module("cuvil_debug.triage.classify")

    kept = [p for p in PATTERNS if p.origin != without]
    saved, classify.PATTERNS = classify.PATTERNS, kept
    try:
        return {
            s: {
                n: classify.classify(r).category if r["status"] == "failed" else "<ok>"
                for n, r in sorted(rs.items())
            }
            for s, rs in recs.items()
        }
    finally:
        classify.PATTERNS = saved


def first_sight() -> dict[str, dict[str, str]]:
    from cuvil_debug.triage.classify import MIN_SCORE

    out: dict[str, dict[str, str]] = {}
    for row in json.loads(FIRST_SIGHT.read_text())["rows"]:
        scores = row["scores"]
        best = max(scores, key=scores.get)
        got = best if scores[best] >= MIN_SCORE else "unknown"
        out.setdefault(row["set"], {})[row["model"]] = got
    return out


def main() -> None:
    from cuvil_debug.triage.corpus import load_labels
    from cuvil_debug.triage.patterns import PATTERNS

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", help="pickle of captured records (read or written)")
    args = ap.parse_args()
    recs = records(args.records)
    labels = {s: load_labels(folder(s)) for s in SETS}
    now = predictions(recs, None)
    first = first_sight()

    def right(pred: dict, s: str, names) -> int:
        return sum(pred[s].get(n) == labels[s][n]["category"] for n in names)

    print("| set | n | first sight | without its rules | now | rows from it |")
    print("|---|---|---|---|---|---|")
    transfer = {}
    for origin in BLIND + ["failures", "written"]:
        rows = sum(p.origin == origin for p in PATTERNS)
        without = predictions(recs, origin) if rows else now
        transfer[origin] = {}
        for s in SETS:
            if s == origin:
                continue
            ok_now = {n for n in labels[s] if now[s][n] == labels[s][n]["category"]}
            ok_without = {
                n for n in labels[s] if without[s][n] == labels[s][n]["category"]
            }
            helped, hurt = len(ok_now - ok_without), len(ok_without - ok_now)
            if helped or hurt:
                transfer[origin][s] = f"+{helped}/-{hurt}"
        if origin not in BLIND:
            continue
        names = sorted(labels[origin])
        # first-sight rows of samples that compile since (a `fixed` label) are left out
        fs = {n: c for n, c in first.get(origin, {}).items() if n in labels[origin]}
        fs_txt = f"{right(first, origin, fs)}/{len(fs)}" if fs else "—"
        print(
            f"| {origin} | {len(names)} | {fs_txt} | "
            f"{right(without, origin, names)}/{len(names)} | "
            f"{right(now, origin, names)}/{len(names)} | {rows} |"
        )
    print(
        "\nother sets' samples an origin's rows make right (+) or wrong (-), "
        "against today's classifier without them:"
    )
    for origin, moved in transfer.items():
        text = ", ".join(f"{s} {k}" for s, k in moved.items()) or "none"
        print(f"- {origin}: {text}")


if __name__ == "__main__":
    main()
