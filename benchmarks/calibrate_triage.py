"""Calibrates triage confidence: fits the softmax temperature (NLL over the labelled
corpus and the held-out set) and prints the reliability table for docs/TRIAGE.md.

    .venv/bin/python benchmarks/calibrate_triage.py [--temperature T]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from cuvil_debug.triage.classify import TEMPERATURE, classify, probabilities
from cuvil_debug.triage.corpus import collect_corpus, load_labels

ROOT = Path(__file__).resolve().parents[1] / "samples" / "failures"
SETS = {"corpus": ROOT, "held-out": ROOT / "heldout"}
GRID = [0.75 + 0.05 * i for i in range(46)]  # below 0.75 it only sharpens 0.99s
BINS = [(0.0, 0.5), (0.5, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 0.95), (0.95, 1.01)]


def scored(folder: Path) -> list[tuple[dict, str]]:
    """(pattern scores, true category) for every failing, labelled model."""
    labels, records = load_labels(folder), collect_corpus(folder)
    return [
        (classify(records[n]).scores, labels[n]["category"])
        for n in sorted(labels)
        if records[n].get("status") == "failed"
    ]


def nll(rows, t: float) -> float:
    return -sum(math.log(max(probabilities(s, t)[y], 1e-9)) for s, y in rows) / len(
        rows
    )


def reliability(rows, t: float) -> list[str]:
    preds = []
    for s, y in rows:
        p = probabilities(s, t)
        best = max(p, key=p.get)
        preds.append((p[best], best == y))
    out = ["| confidence | n | mean confidence | accuracy |", "|---|---|---|---|"]
    for lo, hi in BINS:
        b = [(c, ok) for c, ok in preds if lo <= c < hi]
        if b:
            conf, acc = sum(c for c, _ in b) / len(b), sum(ok for _, ok in b) / len(b)
            out.append(
                f"| {lo:.2f}–{min(hi, 1):.2f} | {len(b)} | {conf:.2f} | {acc:.2f} |"
            )
    ece = sum(
        abs(sum(c for c, _ in b) - sum(ok for _, ok in b))
        for b in ([(c, ok) for c, ok in preds if lo <= c < hi] for lo, hi in BINS)
    )
    out.append(
        f"\nexpected calibration error: {ece / len(preds):.3f} over {len(preds)}"
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--temperature", type=float, default=TEMPERATURE)
    args = ap.parse_args()
    rows = {name: scored(folder) for name, folder in SETS.items()}
    both = rows["corpus"] + rows["held-out"]
    fitted = min(GRID, key=lambda t: nll(both, t))
    print(
        f"fitted temperature (min NLL over {len(both)} models): {fitted:.2f}; "
        f"in use: {args.temperature:.2f}\n"
    )
    for name, r in rows.items():
        print(f"### {name} (temperature {args.temperature:.2f})\n")
        print("\n".join(reliability(r, args.temperature)) + "\n")


if __name__ == "__main__":
    main()
