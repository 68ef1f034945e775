"""`bench --baseline FILE --max-regression P`: this run against an earlier JSON report.

The metric is the compiled module's median CPU time per call (thread CPU for one
thread: the work, not the machine's waiting), looked at twice: as it is, and relative
to eager PyTorch measured interleaved in the same run (a busier machine, a hotter CPU
or a neighbour on the same core slow both alike, so their ratio stays). A batch size
regresses when both slowdowns exceed the threshold and the noise measured in either
run (the spread of the per-round medians, measure.noise): a difference smaller than
the runs' own spread is not evidence, a slower machine is not a slower build, and a
faster torch is not a slower Cuvil.
"""

from __future__ import annotations

import json
from pathlib import Path

from cuvil.errors import CuvilError

__all__ = ["SCHEMA_TAG", "load_baseline", "compare", "percentage"]

SCHEMA_TAG = "cuvil-bench/1"
METRIC = "compiled cpu_ms p50"


def percentage(text: str) -> float:
    """``10%`` or ``10`` -> 0.10 (argparse type of --max-regression)."""
    import argparse

    raw = text.strip().removesuffix("%")
    try:
        value = float(raw) / 100
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(
            f"invalid percentage {text!r}: give a number > 0, e.g. 10%"
        )
    return value


def load_baseline(path: str) -> dict:
    """The report in `path`, checked enough to compare with (a CuvilError saying what
    is wrong otherwise)."""
    fix = "give a file written by cuvil-debug bench --format json"
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise CuvilError(f"--baseline {path}: cannot read it ({e})", hint=fix) from None
    except json.JSONDecodeError as e:
        raise CuvilError(
            f"--baseline {path}: not JSON ({e.msg} at line {e.lineno})", hint=fix
        ) from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA_TAG:
        raise CuvilError(
            f'--baseline {path}: not a bench report (no "schema": "{SCHEMA_TAG}")',
            hint=fix,
        )
    try:
        for row in data["results"]:
            int(row["batch"]), _noise(row), _median(row, "compiled")
            _median(row, "eager")
    except (KeyError, TypeError, ValueError):
        raise CuvilError(
            f"--baseline {path}: a result lacks its batch, cpu_ms p50 or noise",
            hint=fix,
        ) from None
    return data


def compare(report: dict, baseline: dict, path: str, max_regression: float) -> dict:
    """The ``comparison`` object of the report (bench.schema.json)."""
    base_rows = {int(r["batch"]): r for r in baseline["results"]}
    rows, notes = [], []
    for r in report["results"]:
        base = base_rows.get(r["batch"])
        if base is None:
            notes.append(f"batch {r['batch']} is not in the baseline")
            continue
        was, now = _median(base, "compiled"), _median(r, "compiled")
        change = _change(was, now)
        relative = _change(
            _ratio(was, _median(base, "eager")), _ratio(now, _median(r, "eager"))
        )
        spread = max(_noise(r), _noise(base))
        bar = max(max_regression, spread)
        rows.append(
            {
                "batch": r["batch"],
                "baseline_ms": was,
                "current_ms": now,
                "change": change,
                "change_vs_eager": relative,
                "noise": spread,
                "regressed": change > bar and relative > bar,
            }
        )
    if baseline.get("settings", {}).get("cpu_clock") != report["settings"]["cpu_clock"]:
        notes.append("the baseline measured another CPU clock (threads differ)")
    return {
        "baseline": path,
        "metric": METRIC,
        "max_regression": max_regression,
        "rows": rows,
        "notes": notes,
        "regressed": any(row["regressed"] for row in rows),
    }


def _median(row: dict, run: str) -> float:
    return float(row[run]["cpu_ms"]["p50"])


def _noise(row: dict) -> float:
    return max(float(row["compiled"]["noise"]), float(row["eager"]["noise"]))


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else 0.0


def _change(was: float, now: float) -> float:
    return now / was - 1 if was > 0 else 0.0
