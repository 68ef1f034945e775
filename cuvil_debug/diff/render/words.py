"""The report in words, shared by the table and the HTML page: header, mapping
summary, first divergence, next commands, and the details of a node (tooltips)."""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..model import (
    STAGE_TITLES,
    STATUSES,
    DiffReport,
    Divergence,
    Metrics,
    NodeRow,
    StageResult,
)
from ..status import Stage, Status
from .cells import num, short_target


def shape_text(shape: Iterable[int]) -> str:
    return "×".join(str(d) for d in shape) or "scalar"


def header_items(report: DiffReport) -> list[tuple[str, str]]:
    inputs = ", ".join(f"{shape_text(s)} {d}" for s, d in report.inputs) or "none"
    if report.input_source and report.input_source != "example inputs":
        inputs += f" ({report.input_source})"
    items = [
        ("inputs", inputs),
        ("options", ", ".join(f"{k}={v}" for k, v in report.options.items()) or "-"),
        ("judge", judge_words(report)),
        ("tolerances", _tolerances(report) or "-"),
        ("stages", " → ".join(["eager (reference)", *report.stages])),
    ]
    if report.faults:
        items.append(("faults", "injected: " + ", ".join(report.faults)))
    return items


def judge_words(report: DiffReport) -> str:
    """The rule values were judged by, in one line (the header's ``judge``)."""
    j = report.judge or {"kind": "normwise"}
    if j.get("kind") != "float64":
        return "normwise: every value within the tolerances below (against eager)"
    what = "RMSE" if j.get("measure", "rmse") == "rmse" else "max abs error"
    factors = sorted(set((j.get("factors") or {}).values()))
    times = "/".join(f"{f:g}" for f in factors) or "?"
    return (
        f"float64: a value fails when its {what} against the float64 truth exceeds "
        f"{times} x eager-float32's + {j.get('floor_ulps', 0):g} ulp (cells: "
        "stage/eager); the tolerances for dtypes without a float64 twin"
    )


def trial_items(report: DiffReport) -> list[tuple[str, str]]:
    """--trials: one line per batch, the chosen one marked, and the saved file."""
    items = []
    for t in report.trials:
        mark = "▶ " if t.get("chosen") else "  "
        if t.get("first"):
            what = f"diverges: first {t['first']}"
        elif t.get("diverged"):
            what = "diverges (no node introduces it)"
        else:
            what = f"clean (closest: {t.get('worst') or '-'}, {_share(t)} of its bound)"
        items.append(("trials", f"{mark}{t['index']}: {t['source']}: {what}"))
    if report.saved_inputs:
        items.append(
            ("saved", f"the diverging batch: {report.saved_inputs} (--inputs it)")
        )
    return items


def _share(t: dict) -> str:
    x = t.get("excess")
    return "?" if not isinstance(x, int | float) else f"{x:.0%}"


def _tolerances(report: DiffReport) -> str:
    return "; ".join(
        f"{dtype}: rtol {num(t.rtol)}, atol {num(t.atol)}"
        for dtype, t in report.tolerances.items()
    )


def mapping_lines(report: DiffReport) -> list[str]:
    """'opt: 7/7 FX nodes accounted for: 4 value, 1 fused, ...' per stage."""
    counts, total, lines = report.accounted(), len(report.rows), []
    for stage in report.stages:
        n = {st: counts.get(f"{stage}:{st}", 0) for st in STATUSES}
        if n[Status.NOT_RUN] == total and total:
            lines.append(f"{stage}: not run")
            continue
        done = sum(n.values())
        text = ", ".join(f"{c} {st}" for st, c in n.items() if c)
        line = f"{stage}: {done}/{total} FX nodes accounted for: {text or 'none'}"
        missing = [r.name for r in report.rows if stage not in r.stages]
        if missing:
            line += f" (unaccounted: {_some(missing)})"
        lines.append(line)
    return lines


def _some(names: list[str], n: int = 5) -> str:
    return ", ".join(names[:n]) + (", …" if len(names) > n else "")


def outputs_line(report: DiffReport) -> str | None:
    marks = [f"{s} {'✓' if ok else '✗'}" for s, ok in report.outputs_ok.items()]
    return "  ".join(marks) or None


def next_commands(report: DiffReport) -> list[tuple[str, str]]:
    """What to run next, with the options that reproduce this diff (repro_flags)."""
    model = shlex.quote(report.model)
    flags = " ".join(shlex.quote(f) for f in repro_flags(report))
    tail = f" {flags}" if flags else ""
    frontend = report.options.get("frontend", "fx")
    cmds = []
    if report.first and report.first.stage == Stage.OPT:
        fe = "" if frontend == "fx" else f" --frontend {frontend}"
        cmds.append(
            (f"cuvil-debug bisect {model}{tail}{fe}", "find the pass that breaks it")
        )
    # reduce is fx-only; export's nodes carry fx's names, so the same --inject holds
    cmds.append(
        (f"cuvil-debug reduce {model}{tail}", "shrink to the smallest failing graph")
    )
    if report.first and report.first.stage == Stage.NATIVE:
        level = report.options.get("opt_level", "O3")
        cmds.append(
            (
                debugger_command(report.model, report.first.node, report.faults, level),
                "watch it in GDB",
            )
        )
    return cmds


def repro_flags(report: DiffReport) -> list[str]:
    """The diff's ``--inject`` specs and the compile options not at their default, as
    bisect and reduce take them (-O, --no-fusion, -p, --threads)."""
    o = report.options
    flags = [x for spec in report.faults for x in ("--inject", spec)]
    level = o.get("opt_level", "O3")
    if level != "O3":
        flags.append(f"-{level}")
    if o.get("enable_fusion") is False:
        flags.append("--no-fusion")
    pipeline = o.get("pipeline")
    if pipeline is not None and not _default_pipeline(report, pipeline):
        flags += ["-p", pipeline]
    if o.get("num_threads", 1) != 1:
        flags += ["--threads", str(o["num_threads"])]
    return flags + _judge_flags(report)


def _judge_flags(report: DiffReport) -> list[str]:
    """The judge and the batch of the report, as bisect and reduce take them."""
    from ..judge import FACTORS, MAX_FACTORS

    j = report.judge or {"kind": "normwise"}
    flags = []
    if j.get("kind") == "normwise" and report.judge:
        flags += ["--judge", "normwise"]
    elif j.get("kind") == "float64":
        elementwise = j.get("measure") == "max_abs"
        default = MAX_FACTORS if elementwise else FACTORS
        factors = set((j.get("factors") or default).values())
        flags += ["--elementwise"] if elementwise else []
        if factors != set(default.values()) and len(factors) == 1:
            flags += ["--factor", f"{factors.pop():g}"]
    source = report.input_source or ""
    if report.saved_inputs:
        flags += ["--inputs", report.saved_inputs]
    elif source.endswith(".pt") and not report.trials:
        flags += ["--inputs", source]
    return flags


def _default_pipeline(report: DiffReport, pipeline: str) -> bool:
    """Whether `pipeline` is what the report's opt level and fusion choose by
    themselves (plus the inject-fault items its pass faults add)."""
    from cuvil.errors import CuvilError
    from cuvil.passes import default_pipeline

    o = report.options
    items = re.split(r",(?![^{]*\})", pipeline) if pipeline else []  # a{x=1,y=2}
    if any(f.startswith("pass:") for f in report.faults):
        items = [i for i in items if not i.startswith("inject-fault")]
    try:
        default = default_pipeline(
            o.get("opt_level", "O3"), o.get("enable_fusion", True)
        )
    except CuvilError:  # a report of another version: say the pipeline
        return False
    return ",".join(items) == default


def debugger_command(
    model: str, node: str, faults: Iterable[str] = (), opt_level: str = "O3"
) -> str:
    """GDB stopping where the kernel computing `node` returns (docs/DEBUGGING.md),
    the model built with `faults` injected at `opt_level`."""
    root = Path(__file__).resolve().parents[3]
    script, run = (
        root / "gdb_scripts" / "cuvil.py",
        root / "samples" / "debug" / "run.py",
    )
    extra = "".join(f" --inject {shlex.quote(f)}" for f in faults)
    if opt_level != "O3":
        extra += f" --opt {opt_level}"
    return (
        f"gdb -q -ex {shlex.quote(f'source {script}')} "
        f"-ex {shlex.quote(f'cuvil break {node} --after')} -ex run "
        f"--args {sys.executable} {run} {shlex.quote(model)}{extra} "
        f"--stats {shlex.quote(node)}"
    )


def first_items(report: DiffReport, f: Divergence) -> list[tuple[str, str]]:
    """The first divergence in words, as (label, text) lines."""
    rows = [r for r in report.rows if r.name == f.node]
    what = f"%{f.node}" + (f" ({short_target(rows[0].target, 40)})" if rows else "")
    title = STAGE_TITLES.get(f.stage, f.stage)
    culprit = f.culprit
    if f.pass_name and f.pass_name not in culprit:
        culprit += f" (pass {f.pass_name})"
    items = [
        ("first divergence", f"{what} introduced in {f.stage} — {title}"),
        ("why", f.reason),
    ]
    if f.source or f.code:
        code = f": {f.code.strip()}" if f.code else ""
        items.append(("source", f"{f.source or '?'}{code}"))
    items.append(("culprit", culprit))
    if f.output_affected:
        items.append(("output", "affected: the model's outputs differ"))
    else:
        items.append(
            ("output", "hidden downstream (damped): the model's outputs still match")
        )
    return items


def failures(report: DiffReport) -> list[tuple[str, str]]:
    """('failed', 'native %x: <note>') for each node a stage could not run."""
    return [
        ("failed", f"{stage} %{r.name}: {s.note or 'no reason given'}")
        for r in report.rows
        for stage, s in r.stages.items()
        if s.status == Status.FAILED
    ]


def _diverging(report: DiffReport) -> list[str]:
    return [r.name for r in report.rows if any(s.diverges for s in r.stages.values())]


def _compared(report: DiffReport) -> int:
    return sum(s.propagated is not None for r in report.rows for s in r.stages.values())


def clean_words(report: DiffReport) -> str:
    n, stages = _compared(report), ", ".join(report.stages)
    if (report.judge or {}).get("kind") == "float64":
        return (
            f"✓ no divergence: {n} values compared in {stages}, none further from "
            "the float64 truth than eager-float32 allows"
        )
    return f"✓ no divergence: {n} values compared in {stages}, all within tolerance"


def no_first_words(report: DiffReport) -> str:
    names = _diverging(report)
    return (
        f"✗ {len(names)} nodes diverge ({_some(names)}) "
        "but none introduces an error in isolation"
    )


def labels(items: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """A label repeated on consecutive lines is written once."""
    prev = [None, *(k for k, _ in items)]
    return [("" if k == p else k, v) for (k, v), p in zip(items, prev)]


# ---- a node's details (tooltips) ----------------------------------------------------


def _metrics_words(m: Metrics) -> str:
    if not m.shape_ok:
        return "shapes differ"
    parts = [
        f"max abs {num(m.max_abs)}",
        f"max rel {num(m.max_rel)}",
        f"{num(m.max_ulp)} ulp",
    ]
    if m.cosine is not None:
        parts.append(f"cosine {m.cosine:.6g}")
    if m.sqnr_db is not None:
        parts.append(f"SQNR {num(m.sqnr_db)} dB")
    parts.append(f"{m.mismatched}/{m.numel} mismatched ({m.dtype})")
    if m.judge == "float64" and m.truth is not None and m.eager is not None:
        t, e = m.truth, m.eager
        parts.append(
            f"vs float64: RMSE {num(t.rmse)}, max abs {num(t.max_abs)}, "
            f"{num(t.max_ulp)} ulp; eager-float32: RMSE {num(e.rmse)}, max abs "
            f"{num(e.max_abs)}, {num(e.max_ulp)} ulp; bound {num(m.bound or 0)} "
            f"({m.measure})"
        )
    parts += [f"{n} {w}" for n, w in ((m.nan, "new NaN"), (m.inf, "new Inf")) if n]
    if m.worst_index is not None:
        parts.append(f"worst at {list(m.worst_index)}")
    return ", ".join(parts)


def stage_details(stage: str, s: StageResult) -> list[str]:
    head = f"{stage}: {s.status}" + (f" {s.value}" if s.value else "")
    extra = [
        f"{k} {v}"
        for k, v in (("op", s.op), ("kernel", s.kernel), ("layout", s.layout))
        if v
    ]
    lines = [head + (f" ({', '.join(extra)})" if extra else "")]
    if s.with_nodes:
        lines.append(f"  with {', '.join(s.with_nodes)}")
    for name, m in (("propagated", s.propagated), ("isolated", s.isolated)):
        if m is not None:
            lines.append(f"  {name}: {_metrics_words(m)}")
    lines += [f"  static: {p}" for p in s.static]
    if s.note:
        lines.append(f"  note: {s.note}")
    return lines


def node_details(r: NodeRow) -> list[str]:
    lines = [f"%{r.name} = {r.op} {r.target}"]
    if r.module:
        lines.append(f"module {r.module}")
    if r.source:
        lines.append(f"{r.source}: {r.code.strip()}" if r.code else r.source)
    if r.shape is not None:
        lines.append(f"{shape_text(r.shape)} {r.dtype or ''}".rstrip())
    for stage, s in r.stages.items():
        lines += stage_details(stage, s)
    return lines
