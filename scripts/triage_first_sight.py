"""Records how triage scored each development-part failure *before* it was tuned on it
(its "first sight"), for benchmarks/calibrate_triage.py: the development part itself is
classified almost perfectly after tuning, so fitting confidence on it would promise
more than unseen failures get.

For each labelled folder below, the folder's records are captured with today's
collector, then classified by the classifier as it was at the commit given (checked out
into a temporary git worktree, run in a subprocess); the pattern scores and the label go
to benchmarks/data/triage_first_sight.json.

    .venv/bin/python scripts/triage_first_sight.py [--records FILE] [--only SET]

`--records FILE`: the captured records in a pickle, as scripts/triage_loso.py keeps
them (read when the file exists, else captured and written), instead of capturing.
`--only SET` (repeatable): record only these sets' rows and keep the other sets' rows
already in the file (how a set that just became development data joins the rows
without re-scoring the older ones on fresh captures).
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAILURES = ROOT / "samples" / "failures"
OUT = ROOT / "benchmarks" / "data" / "triage_first_sight.json"
# folder -> the last commit before any pattern was tuned on that folder
FIRST_SIGHT = {
    "written": "d3f39ab",  # merge of samples/failures/written, before 9ad16d4 tuned on it
    "library": "ae38b9a",  # before d9e41fc, the first change made looking at it
    "timm": "e1c3dd2",  # measured once as held-out there; tuned on from the next commit
    "zoo": "ebf0299",  # measured once as held-out (docs/TRIAGE.md); tuned on after
    "zoo3": "6f6a9aa",  # measured once as held-out (docs/TRIAGE.md); tuned on after
    "zoo4": "c549ea8",  # measured once as held-out at 6b989af; tuned on after c549ea8
    "zoo5": "dca5546",  # measured once as held-out at a9d8ea9; tuned on after dca5546
    "zoo6": "803d19c",  # measured once as held-out at 803d19c; tuned on after it
    "zoo7": "f67a116",  # measured once as held-out at f67a116; tuned on after 73628ae
    "zoo8": "995b921",  # measured once as held-out at 995b921 (56e4b60); tuned on after
    "zoo9": "4d3cf0e",  # measured once as held-out at 4d3cf0e (0ffff33); tuned on after
    "zoo10": "a8aacae",  # measured once as held-out at a8aacae; tuned on after 9d44f63
    "zoo12": "03ea13e",  # measured once as held-out at 03ea13e; tuned on after it
    "zoo13": "beb0043",  # measured once as held-out at beb0043; tuned on after it
    "zoo15": "e09486c",  # measured once as held-out at e09486c; tuned on after 14f3886
    "zoo16": "c1ad0b3",  # measured once as held-out at c1ad0b3; tuned on after ede373f
    "zoo17": "4dc7729",  # measured once as held-out at 4dc7729; tuned on after 6eb4c1f
    "zoo18": "aeb1542",  # measured once as held-out at aeb1542; tuned on after dcbb1a7
    "zoo19": "a767021",  # measured once as held-out at a767021; tuned on after d17bed6
    "zoo20": "ab9b012",  # measured once as held-out at ab9b012; tuned on after d17bed6
    "zoo21": "970cc72",  # measured once as held-out at 970cc72; tuned on after 0a3adca
    "zoo22": "34fcbf2",  # measured once as held-out at 34fcbf2; tuned on after 99f58ee
    "zoo23": "7b726fa",  # measured once as held-out at 7b726fa; tuned on after it
    "zoo24": "55b8086",  # measured once as held-out at 55b8086; tuned on after it
    "zoo25": "4a47bd0",  # measured once as held-out at 4a47bd0; tuned on after a5296d7
    "zoo26": "378c716",  # measured once as held-out at 378c716; tuned on after a5296d7
    "zoo27": "1ca942e",  # measured once as held-out at 1ca942e; tuned on after ae23260
}
# sets held out whole when first measured (every label says split "heldout"): all of
# their failures are first-sight rows
WHOLE = {
    "zoo7",
    "zoo8",
    "zoo9",
    "zoo10",
    "zoo12",
    "zoo13",
    "zoo15",
    "zoo16",
    "zoo17",
    "zoo18",
    "zoo19",
    "zoo20",
    "zoo21",
    "zoo22",
    "zoo23",
    "zoo24",
    "zoo25",
    "zoo26",
    "zoo27",
}
CLASSIFY = """
import json, pickle, sys
sys.path.insert(0, sys.argv[1])
from cuvil_debug.triage.categories import CATEGORIES
from cuvil_debug.triage.classify import classify
records = pickle.load(open(sys.argv[2], "rb"))
def scores(r):
    try:
        return classify(r).scores
    except Exception:  # the classifier of that commit crashed: no answer (unknown)
        return {c: 0.0 for c in CATEGORIES if c != "unknown"}
print(json.dumps({n: scores(r) for n, r in records.items()}))
"""


def main() -> None:
    import argparse

    from cuvil_debug.triage.corpus import load_labels

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", help="pickle of captured records (read or written)")
    ap.add_argument("--only", action="append", choices=sorted(FIRST_SIGHT))
    args = ap.parse_args()
    folders = [FAILURES / name for name in args.only or FIRST_SIGHT]
    records = _records(folders, args.records)
    rows = []
    if args.only and OUT.exists():  # keep the other sets' rows as recorded
        rows = [
            r for r in json.loads(OUT.read_text())["rows"] if r["set"] not in args.only
        ]
    for folder in folders:
        labels = load_labels(folder)
        dev = {
            n: r
            for n, r in records[folder].items()
            if r.get("status") == "failed"
            and (folder.name in WHOLE or labels[n].get("split", "dev") == "dev")
        }
        scores = _classify_at(FIRST_SIGHT[folder.name], dev)
        rows += [
            {
                "set": folder.name,
                "model": n,
                "label": labels[n]["category"],
                "scores": s,
            }
            for n, s in sorted(scores.items())
        ]
    OUT.write_text(json.dumps({"commits": FIRST_SIGHT, "rows": rows}, indent=1) + "\n")
    print(f"wrote {len(rows)} first-sight scores to {OUT.relative_to(ROOT)}")


def _records(folders: list[Path], path: str | None) -> dict[Path, dict]:
    if path and Path(path).exists():
        cached = pickle.loads(Path(path).read_bytes())  # set name -> records
        return {f: cached[f.name] for f in folders}
    from cuvil_debug.triage.corpus import collect_corpora

    records = collect_corpora(folders, workers=2, timeout=300)
    if path:
        Path(path).write_bytes(pickle.dumps({f.name: r for f, r in records.items()}))
    return records


def _classify_at(commit: str, records: dict) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(
            [
                "git",
                "-C",
                str(ROOT),
                "worktree",
                "add",
                "-q",
                "--detach",
                str(tree),
                commit,
            ],
            check=True,
        )
        try:
            data = Path(tmp) / "records.pkl"
            data.write_bytes(pickle.dumps(records))
            out = subprocess.run(
                [sys.executable, "-c", CLASSIFY, str(tree), str(data)],
                check=True,
                capture_output=True,
                text=True,
                cwd=tmp,
            )
            return json.loads(out.stdout.strip().splitlines()[-1])
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)],
                check=True,
            )


if __name__ == "__main__":
    main()
