"""Accuracy of `cuvil-debug triage --static` on labelled folders: top-1 category and
root line in the top 3, per folder. No model code is run.

    python benchmarks/triage_static.py [FOLDER ...] [-v]

Default folders: samples/failures and samples/failures/heldout. Each folder has a
labels.json: file name -> {"category", "frontend", and "root_line" (a line of the
sample) or "root" (a list of "PATH:LINE", PATH the sample's name or a path relative
to site-packages, e.g. "transformers/models/bert/modeling_bert.py:601")}.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cuvil_debug.triage.corpus import expected_roots, load_labels  # noqa: E402
from cuvil_debug.triage.static import static_result  # noqa: E402

DEFAULT = [ROOT / "samples" / "failures", ROOT / "samples" / "failures" / "heldout"]


def root_hit(result: dict, want: tuple[tuple[str, int], ...]) -> bool:
    for cause in result.get("root_causes", [])[:3]:
        loc = cause["location"]
        file = Path(loc["file"]).resolve().as_posix()
        if any(file.endswith("/" + p) and loc["line"] == n for p, n in want):
            return True
    return False


def evaluate(folder: Path, verbose: bool) -> tuple[int, int, int, int, int]:
    labels = load_labels(folder)
    cat_ok = root_ok = failed = right = 0
    for name, label in sorted(labels.items()):
        result = static_result(str(folder / name), label.get("frontend", "fx"))
        got = result.get("category") or f"<{result['status']}>"
        c = got == label["category"]
        r = root_hit(result, expected_roots(name, label))
        cat_ok += c
        root_ok += r
        failed += result["status"] == "failed"
        right += c and result["status"] == "failed"
        if verbose:
            lines = [x["location"]["line"] for x in result.get("root_causes", [])]
            print(
                f"  {'ok ' if c else 'BAD'} {'r' if r else '-'} {name:34} "
                f"{label['category']:30} got {got} {result.get('confidence')} {lines}"
            )
    return len(labels), cat_ok, root_ok, failed, right


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*", type=Path, default=DEFAULT)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    print(
        f"{'folder':32} {'n':>4} {'top-1':>7} {'root@3':>7} {'flagged':>8} {'right when flagged':>18}"
    )
    for folder in args.folders:
        if args.verbose:
            print(folder)
        n, c, r, f, ok = evaluate(folder, args.verbose)
        print(
            f"{str(folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder):32} "
            f"{n:4} {c / n:7.1%} {r / n:7.1%} {f / n:8.1%} {ok:>5}/{f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
