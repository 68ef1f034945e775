"""Runs the OpInfo sweep (tests/opinfo/harness.py) and prints the pass-rate table.

python scripts/opinfo_report.py               # table on stdout
python scripts/opinfo_report.py --write       # ... and into docs/OPS.md's OpInfo section
python scripts/opinfo_report.py --samples 2 --frontends export --opt O3 --list

Per op the verdict is the worst of its samples: pass (every sample), partly (some pass,
the rest refused), unsupported (every sample refused), wrong, internal. The section of
docs/OPS.md between the OpInfo markers is regenerated, never hand-edited.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "opinfo"))

import harness  # noqa: E402

DOC = ROOT / "docs" / "OPS.md"
BEGIN, END = "<!-- opinfo-report: begin -->", "<!-- opinfo-report: end -->"
VERDICTS = ("pass", "partly", "unsupported", "wrong", "internal")


def verdicts(outcomes) -> dict[str, str]:
    kinds: dict[str, list[str]] = defaultdict(list)
    for o in outcomes:
        kinds[o.op].append(o.kind)
    return {op: harness.op_outcome(k) for op, k in kinds.items()}


def table(by_op: dict[str, str], args) -> list[str]:
    counts, total = Counter(by_op.values()), len(by_op)
    rows = [
        f"`op_db` ops with a float32 CPU meaning: {total}; up to {args.samples} samples "
        f"each, frontends {', '.join(args.frontends)}, {args.opt}; "
        "`python scripts/opinfo_report.py --write` regenerates this section.",
        "",
        "| verdict | ops | share |",
        "|---|---|---|",
    ]
    for v in VERDICTS:
        rows.append(f"| {v} | {counts[v]} | {100 * counts[v] / max(total, 1):.1f}% |")
    bad = sorted(op for op, v in by_op.items() if v in ("wrong", "internal"))
    passing = sorted(op for op, v in by_op.items() if v == "pass")
    rows += ["", f"Wrong or internal: {', '.join(bad) or 'none'}.", ""]
    rows.append("Pass on every sample: " + ", ".join(f"`{op}`" for op in passing) + ".")
    return rows


def write_section(rows: list[str]) -> None:
    text = DOC.read_text()
    block = "\n".join([BEGIN, *rows, END])
    if BEGIN in text:
        head, rest = text.split(BEGIN, 1)
        text = head + block + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n## OpInfo pass rates\n\n" + block + "\n"
    DOC.write_text(text)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--samples", type=int, default=8)
    p.add_argument("--frontends", nargs="+", default=["export", "fx"])
    p.add_argument("--opt", default="O0")
    p.add_argument("--write", action="store_true", help="update docs/OPS.md")
    p.add_argument("--list", action="store_true", help="print each bad sample")
    args = p.parse_args(argv)
    sys.unraisablehook = lambda _: None  # generators finished inside a tracer
    outcomes = list(
        harness.sweep(
            harness.model_ops(), args.samples, tuple(args.frontends), args.opt
        )
    )
    if args.list:
        for o in outcomes:
            if o.kind in ("wrong", "internal"):
                print(f"{o.op} #{o.index} {o.frontend}: {o.kind}: {o.detail}")
    rows = table(verdicts(outcomes), args)
    print("\n".join(rows[:11]))
    if args.write:
        write_section(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
