"""One node in one stage, as every format shows it: its verdict, its cell text
(``✗ 0.51 introduced``, ``fused→%add``), the brackets of fused groups, short names."""

from __future__ import annotations

import math
import re
from pathlib import Path

from ..model import Metrics, NodeRow, StageResult
from ..status import Stage, Status, Verdict

# A stage cell's verdict, strongest first (a row takes the strongest of its stages).
VERDICTS = tuple(Verdict)
# verdict: (terminal style, fill, border) of the graph and the HTML page
STYLE = {
    Verdict.INTRODUCED: ("bold red", "#ffd6d6", "#c62828"),
    Verdict.FAILED: ("magenta", "#f3d1f4", "#8e24aa"),
    Verdict.INHERITED: ("yellow", "#fff3c4", "#b58900"),
    Verdict.OK: ("green", "#d9f2d9", "#2e7d32"),
    Verdict.NONE: ("dim", "#eeeeee", "#9e9e9e"),
}
MARK = "▶"  # the first divergence


def num(x: float) -> str:
    """Compact error numbers for narrow cells: 0, 3e-7, 1.5e-5, 0.51, 12, inf."""
    if math.isnan(x) or math.isinf(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if x == 0 or 1e-3 <= abs(x) < 100:
        return f"{x:.2g}"
    if 100 <= abs(x) < 1e5:
        return f"{x:.0f}"
    mant, exp = f"{x:.1e}".split("e")
    return f"{mant.removesuffix('.0')}e{int(exp)}"


def _err(m: Metrics) -> str:
    """The error a cell shows: max abs against eager, or, judged against float64,
    the stage's error and eager-float32's (``6.2e-6/1.4e-6``: RMSE, or max abs with
    --elementwise)."""
    if not m.shape_ok:
        return "shape"
    if m.nan or m.inf or m.lost_nan:
        return "nan" if m.nan or m.lost_nan else "inf"
    if m.judge == "float64" and m.truth is not None and m.eager is not None:
        field = m.measure if m.measure in ("rmse", "max_abs") else "rmse"
        return f"{num(getattr(m.truth, field))}/{num(getattr(m.eager, field))}"
    return num(m.max_abs)


def verdict_of(s: StageResult) -> Verdict:
    if s.status == Status.FAILED:
        return Verdict.FAILED
    if s.introduced:
        return Verdict.INTRODUCED
    if s.diverges:
        return Verdict.INHERITED
    return Verdict.OK if s.propagated is not None else Verdict.NONE


def _ref(name: str | None, stage: str) -> str:
    """An IR value as printed (%name); native kernels are symbols, left alone."""
    if not name or stage == Stage.NATIVE or name.startswith("%"):
        return name or ""
    return "%" + name


def _tag(s: StageResult, stage: str) -> str:
    """What the status says beyond the error: where a fused/folded/alias node went."""
    if s.status == Status.FUSED:
        return f"fused→{_ref(s.kernel or s.value, stage)}".rstrip("→")
    if s.status == Status.FOLDED:
        into = s.value or (s.with_nodes[0] if s.with_nodes else None)
        return f"folded→{_ref(into, Stage.OPT)}".rstrip("→")
    if s.status == Status.ALIAS:
        return f"alias→{_ref(s.value, stage)}".rstrip("→")
    return _TAGS.get(s.status, s.status)


_TAGS = {Status.CONSTANT: "const", Status.NOT_RUN: "not run", Status.VALUE: ""}


def cell(s: StageResult | None, stage: str) -> tuple[str, Verdict]:
    """(text, verdict) of one node in one stage, e.g. ('✗ 0.51 introduced', ...)."""
    if s is None:
        return "?", Verdict.NONE
    verdict = verdict_of(s)
    if verdict == Verdict.FAILED:
        return "✗ failed", verdict
    m = s.propagated
    if s.introduced and (m is None or m.ok):
        m = s.isolated  # the node's own error, hidden in the propagated run
    parts = []
    if verdict in (Verdict.INTRODUCED, Verdict.INHERITED):
        bad = m is not None and not m.ok
        parts += [f"✗ {_err(m)}" if bad else "✗ static", verdict]
    elif verdict == Verdict.OK:
        parts.append(f"✓ {_err(m)}")
    tag = _tag(s, stage)
    parts += [tag] if tag else ([] if parts else ["not compared"])
    return " ".join(parts), verdict


def _group_key(s: StageResult | None) -> str | None:
    if s is None or s.status not in (Status.VALUE, Status.FUSED):
        return None
    key = s.kernel or (
        s.value if s.status == Status.FUSED or s.op == "cuvil.fused" else None
    )
    return key.lstrip("%") if key else None


def _brackets(rows: list[NodeRow], stage: str) -> list[str]:
    """╭/│/╰ on consecutive rows computed by one kernel (fused op) in `stage`."""
    keys = [_group_key(r.stages.get(stage)) for r in rows]
    marks = [""] * len(rows)
    i = 0
    while i < len(keys):
        j = i
        while keys[i] and j + 1 < len(keys) and keys[j + 1] == keys[i]:
            j += 1
        if j > i:
            marks[i : j + 1] = ["╭", *["│"] * (j - i - 1), "╰"]
        i = j + 1
    return marks


def stage_cells(rows: list[NodeRow], stage: str) -> list[tuple[str, Verdict]]:
    cells = [cell(r.stages.get(stage), stage) for r in rows]
    marks = _brackets(rows, stage)
    if not any(marks):
        return cells
    return [(f"{m or ' '} {t}", v) for (t, v), m in zip(cells, marks)]


def row_verdict(r: NodeRow) -> Verdict:
    found = {verdict_of(s) for s in r.stages.values()}
    return next((v for v in VERDICTS if v in found), Verdict.NONE)


_PREFIXES = (
    (re.compile(r"^torch\.nn\.functional\."), "F."),
    (re.compile(r"^torch\.ops\.aten\."), "aten."),
    (re.compile(r"^torch\.nn\.modules\.(\w+\.)*"), ""),  # torch.nn.modules.conv.
    (re.compile(r"^(_?operator|builtins)\."), ""),
)


def short_target(target: str, width: int = 24) -> str:
    """torch.nn.functional.relu -> F.relu; long dotted paths keep their tail."""
    for pattern, short in _PREFIXES:
        target = pattern.sub(short, target)
    parts = target.split(".")
    while len(".".join(parts)) > width - 1 and len(parts) > 1:
        parts.pop(0)
    short = ".".join(parts)
    if short != target:
        short = "…" + short
    return short if len(short) <= width else short[: width - 1] + "…"


def short_source(source: str | None) -> str:
    if not source:
        return ""
    path, sep, line = source.rpartition(":")
    return f"{Path(path).name}:{line}" if sep and line.isdigit() else Path(source).name
