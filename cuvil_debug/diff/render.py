"""Renders a `DiffReport`: the terminal table, the versioned JSON, one self-contained
HTML page (graph drawn by graphviz) and the FX graph as DOT. docs/DIFF.md shows each."""

from __future__ import annotations

import functools
import html
import json
import math
import re
import shlex
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import graphviz
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .model import (
    STAGE_TITLES,
    STATUSES,
    DiffReport,
    Divergence,
    Metrics,
    NodeRow,
    StageResult,
)
from .status import Stage, Status, Verdict

__all__ = [
    "SCHEMA_PATH",
    "render_table",
    "report_json",
    "validate_json",
    "render_html",
    "render_dot",
]

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "docs" / "diff.schema.json"

# A stage cell's verdict, strongest first (a row takes the strongest of its stages).
VERDICTS = tuple(Verdict)
# verdict: (terminal style, fill, border) of the graph and the HTML page
_STYLE = {
    Verdict.INTRODUCED: ("bold red", "#ffd6d6", "#c62828"),
    Verdict.FAILED: ("magenta", "#f3d1f4", "#8e24aa"),
    Verdict.INHERITED: ("yellow", "#fff3c4", "#b58900"),
    Verdict.OK: ("green", "#d9f2d9", "#2e7d32"),
    Verdict.NONE: ("dim", "#eeeeee", "#9e9e9e"),
}
_FONT = "Helvetica,Arial,sans-serif"
_MARK = "▶"

# --------------------------------------------------------------------------- cells


def _num(x: float) -> str:
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
    if not m.shape_ok:
        return "shape"
    if m.nan or m.inf:
        return "nan" if m.nan else "inf"
    return _num(m.max_abs)


def _verdict(s: StageResult) -> Verdict:
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


def _cell(s: StageResult | None, stage: str) -> tuple[str, Verdict]:
    """(text, verdict) of one node in one stage, e.g. ('✗ 0.51 introduced', ...)."""
    if s is None:
        return "?", Verdict.NONE
    verdict = _verdict(s)
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


def _stage_cells(rows: list[NodeRow], stage: str) -> list[tuple[str, Verdict]]:
    cells = [_cell(r.stages.get(stage), stage) for r in rows]
    marks = _brackets(rows, stage)
    if not any(marks):
        return cells
    return [(f"{m or ' '} {t}", v) for (t, v), m in zip(cells, marks)]


def _row_verdict(r: NodeRow) -> Verdict:
    found = {_verdict(s) for s in r.stages.values()}
    return next((v for v in VERDICTS if v in found), Verdict.NONE)


def _shown(report: DiffReport, all_rows: bool) -> list[NodeRow]:
    """Tensor nodes, plus any node that diverges or is the first divergence."""
    first = report.first.node if report.first else None
    return [
        r
        for r in report.rows
        if all_rows or r.is_tensor or r.name == first or _row_verdict(r).bad
    ]


_PREFIXES = (
    (re.compile(r"^torch\.nn\.functional\."), "F."),
    (re.compile(r"^torch\.ops\.aten\."), "aten."),
    (re.compile(r"^torch\.nn\.modules\.(\w+\.)*"), ""),  # torch.nn.modules.conv.
    (re.compile(r"^(_?operator|builtins)\."), ""),
)


def _short_target(target: str, width: int = 24) -> str:
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


def _short_source(source: str | None) -> str:
    if not source:
        return ""
    path, sep, line = source.rpartition(":")
    return f"{Path(path).name}:{line}" if sep and line.isdigit() else Path(source).name


# --------------------------------------------------------------------------- words


def _shape(shape: Iterable[int]) -> str:
    return "×".join(str(d) for d in shape) or "scalar"


def _header_items(report: DiffReport) -> list[tuple[str, str]]:
    items = [
        ("inputs", ", ".join(f"{_shape(s)} {d}" for s, d in report.inputs) or "none"),
        ("options", ", ".join(f"{k}={v}" for k, v in report.options.items()) or "-"),
        ("tolerances", _tolerances(report) or "-"),
        ("stages", " → ".join(["eager (reference)", *report.stages])),
    ]
    if report.faults:
        items.append(("faults", "injected: " + ", ".join(report.faults)))
    return items


def _tolerances(report: DiffReport) -> str:
    return "; ".join(
        f"{dtype}: rtol {_num(t.rtol)}, atol {_num(t.atol)}"
        for dtype, t in report.tolerances.items()
    )


def _mapping_lines(report: DiffReport) -> list[str]:
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


def _outputs_line(report: DiffReport) -> str | None:
    marks = [f"{s} {'✓' if ok else '✗'}" for s, ok in report.outputs_ok.items()]
    return "  ".join(marks) or None


def _next_commands(report: DiffReport) -> list[tuple[str, str]]:
    model = shlex.quote(report.model)
    cmds = []
    if report.first and report.first.stage == Stage.OPT:
        cmds.append((f"cuvil-debug bisect {model}", "find the pass that breaks it"))
    cmds.append((f"cuvil-debug reduce {model}", "shrink to the smallest failing graph"))
    return cmds


def _first_items(report: DiffReport, f: Divergence) -> list[tuple[str, str]]:
    """The first divergence in words, as (label, text) lines."""
    rows = [r for r in report.rows if r.name == f.node]
    what = f"%{f.node}" + (f" ({_short_target(rows[0].target, 40)})" if rows else "")
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


def _failures(report: DiffReport) -> list[tuple[str, str]]:
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


# --------------------------------------------------------------------------- terminal


def render_table(
    report: DiffReport, console: Console, *, all_rows: bool = False
) -> None:
    """Print the header, one row per FX node (tensor nodes unless `all_rows`), then
    the summary: mapping, first divergence with its source and culprit, next command."""
    console.print(_rich_header(report))
    rows = _shown(report, all_rows)
    console.print(_rich_table(report, rows))
    hidden = len(report.rows) - len(rows)
    if hidden:
        console.print(Text(f"{hidden} non-tensor nodes not shown (--all)", "dim"))
    console.print(_rich_summary(report))


def _labels(items: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """A label repeated on consecutive lines is written once."""
    prev = [None, *(k for k, _ in items)]
    return [("" if k == p else k, v) for (k, v), p in zip(items, prev)]


def _grid(items: list[tuple[str, str | Text]]) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column()
    for label, value in _labels(items):
        grid.add_row(Text(label), value if isinstance(value, Text) else Text(value))
    return grid


def _rich_header(report: DiffReport) -> Table:
    title = Text.assemble(("cuvil-debug diff ", "bold"), (report.model, "bold cyan"))
    grid = Table.grid()
    grid.add_row(title)
    grid.add_row(_grid(_header_items(report)))
    return grid


def _rich_table(report: DiffReport, rows: list[NodeRow]) -> Table:
    # On a narrow terminal the marker, the node and the verdicts keep their room; the
    # source and the tails of the stage cells are cut (with …) first.
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, header_style="bold")
    index_width = len(str(max((r.index for r in rows), default=0))) + 2
    name_width = min(max((len(r.name) for r in rows), default=4), 16)
    t.add_column("#", justify="right", no_wrap=True, min_width=index_width)
    t.add_column(
        "node", no_wrap=True, overflow="ellipsis", min_width=name_width, max_width=32
    )
    t.add_column("target", no_wrap=True, overflow="ellipsis", min_width=6, max_width=24)
    t.add_column("source", no_wrap=True, overflow="ellipsis", max_width=24)
    for stage in report.stages:
        t.add_column(stage, no_wrap=True, overflow="ellipsis", min_width=8)
    cells = [_stage_cells(rows, stage) for stage in report.stages]
    first = report.first.node if report.first else None
    for i, r in enumerate(rows):
        is_first = r.name == first
        index = Text(f"{_MARK} {r.index}" if is_first else str(r.index))
        t.add_row(
            index,
            Text(r.name),
            Text(_short_target(r.target)),
            Text(_short_source(r.source), "dim"),
            *(Text(c[i][0], _STYLE[c[i][1]][0]) for c in cells),
            style="bold red" if is_first else None,
        )
    return t


def _rich_summary(report: DiffReport) -> Table:
    items: list[tuple[str, str | Text]] = [
        ("mapping", line) for line in _mapping_lines(report)
    ]
    if out := _outputs_line(report):
        items.append(("outputs", out))
    if report.first:
        mark, *rest = _first_items(report, report.first)
        items.append((mark[0], Text(f"{_MARK} {mark[1]}", "bold red")))
        items += rest
        items += [
            ("next", Text(f"{c}   # {why}", "cyan"))
            for c, why in _next_commands(report)
        ]
    elif report.diverged:
        items.append(("verdict", Text(_no_first_words(report), "bold yellow")))
    else:
        items.append(("verdict", Text(_clean_words(report), "bold green")))
    items += _failures(report) + [("note", n) for n in report.notes]
    return _grid(items)


def _clean_words(report: DiffReport) -> str:
    n, stages = _compared(report), ", ".join(report.stages)
    return f"✓ no divergence: {n} values compared in {stages}, all within tolerance"


def _no_first_words(report: DiffReport) -> str:
    names = _diverging(report)
    return (
        f"✗ {len(names)} nodes diverge ({_some(names)}) "
        "but none introduces an error in isolation"
    )


# --------------------------------------------------------------------------- JSON


def report_json(report: DiffReport) -> dict[str, Any]:
    """``report.to_json()`` plus each stage result's ``verdict`` and the mapping counts
    (``accounted``); always plain JSON (odd option values become strings)."""
    doc = report.to_json()
    for row_doc, row in zip(doc["rows"], report.rows):
        for stage, s_doc in row_doc["stages"].items():
            s_doc["verdict"] = _verdict(row.stages[stage])
    doc["accounted"] = report.accounted()
    return json.loads(json.dumps(doc, default=str, allow_nan=False))


@functools.cache
def _validator() -> Any:
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def validate_json(doc: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError unless `doc` is a valid diff report
    (schema_version 1, docs/diff.schema.json)."""
    _validator().validate(doc)


# --------------------------------------------------------------------------- DOT


def _dot_text(*parts: str) -> str:
    """One label from lines: backslashes of the text kept, never HTML-like."""
    return graphviz.nohtml("\\n".join(p.replace("\\", "\\\\") for p in parts))


def _focus_stage(r: NodeRow, first_stage: str | None) -> str | None:
    """The stage a graph node shows (and is coloured by): the first divergence's, else
    the earliest stage with its worst verdict, else the last stage: what it became."""
    if first_stage in r.stages:
        return first_stage
    bad = [st for st, s in r.stages.items() if _verdict(s).bad]
    if bad:
        return min(bad, key=lambda st: VERDICTS.index(_verdict(r.stages[st])))
    return next(reversed(r.stages), None)


def _digraph(report: DiffReport, *, links: bool = False) -> graphviz.Digraph:
    g = graphviz.Digraph("fx")
    g.attr(rankdir="TB", fontname=_FONT, label=_dot_text(f"FX graph: {report.model}"))
    g.attr("node", shape="box", style="rounded,filled", fontname=_FONT, fontsize="10")
    g.attr("edge", color="#888888", arrowsize="0.6")
    ids = {r.name: f"n{pos}" for pos, r in enumerate(report.rows)}
    first = report.first
    for pos, r in enumerate(report.rows):
        is_first = first is not None and first.node == r.name
        attrs = _dot_node(r, first.stage if is_first else None)
        if links:  # the HTML page: a click on a node shows its table row
            attrs.update(URL=f"#row-{pos}", target="_self")
        g.node(ids[r.name], **attrs)
    for r in report.rows:
        for src in r.inputs:
            if src in ids:
                g.edge(ids[src], ids[r.name])
    return g


def _dot_node(r: NodeRow, first_stage: str | None) -> dict[str, str]:
    stage = _focus_stage(r, first_stage)
    _, fill, border = _STYLE[_verdict(r.stages[stage]) if stage else Verdict.NONE]
    lines = [r.name, _short_target(r.target, 32)]
    if stage:
        lines.append(f"{stage}: {_cell(r.stages[stage], stage)[0]}")
    attrs = {
        "label": _dot_text(*lines),
        "fillcolor": fill,
        "color": border,
        "tooltip": _dot_text(*_node_details(r)),
    }
    if first_stage:
        attrs.update(penwidth="4", color=_STYLE[Verdict.INTRODUCED][2])
    return attrs


def render_dot(report: DiffReport) -> str:
    """The FX graph in DOT: nodes coloured by verdict (green ok, yellow inherited, red
    introduced, grey folded/removed/fused-only), the first divergence outlined thick."""
    return _digraph(report).source


# --------------------------------------------------------------------------- details


def _metrics_words(m: Metrics) -> str:
    if not m.shape_ok:
        return "shapes differ"
    parts = [
        f"max abs {_num(m.max_abs)}",
        f"max rel {_num(m.max_rel)}",
        f"{_num(m.max_ulp)} ulp",
    ]
    if m.cosine is not None:
        parts.append(f"cosine {m.cosine:.6g}")
    if m.sqnr_db is not None:
        parts.append(f"SQNR {_num(m.sqnr_db)} dB")
    parts.append(f"{m.mismatched}/{m.numel} mismatched ({m.dtype})")
    parts += [f"{n} {w}" for n, w in ((m.nan, "new NaN"), (m.inf, "new Inf")) if n]
    if m.worst_index is not None:
        parts.append(f"worst at {list(m.worst_index)}")
    return ", ".join(parts)


def _stage_details(stage: str, s: StageResult) -> list[str]:
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


def _node_details(r: NodeRow) -> list[str]:
    lines = [f"%{r.name} = {r.op} {r.target}"]
    if r.module:
        lines.append(f"module {r.module}")
    if r.source:
        lines.append(f"{r.source}: {r.code.strip()}" if r.code else r.source)
    if r.shape is not None:
        lines.append(f"{_shape(r.shape)} {r.dtype or ''}".rstrip())
    for stage, s in r.stages.items():
        lines += _stage_details(stage, s)
    return lines


# --------------------------------------------------------------------------- HTML


_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em;margin:0 0 .4em} h2{font-size:1.1em;margin:1.2em 0 .4em}
code,pre,table.nodes td{font-family:ui-monospace,Menlo,Consolas,monospace}
code,pre,table.nodes td{font-size:12px}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:.1em 1em;margin:0}
dl.kv dt{color:#666} dl.kv dd{margin:0;white-space:pre-wrap}
.verdict{border:2px solid;border-radius:6px;padding:.6em 1em;margin:1em 0}
.verdict.bad{border-color:#c62828;background:#fff5f5}
.verdict.good{border-color:#2e7d32;background:#f3fbf3}
.verdict.warn{border-color:#b58900;background:#fffbea}
.panes{display:flex;gap:1em;align-items:flex-start}
.pane{flex:1 1 0;min-width:0;border:1px solid #ddd;border-radius:6px;padding:.5em}
.pane h2{margin-top:0}
.graph,pre.ir,pre.dot{max-height:80vh;overflow:auto}
.graph svg{max-width:100%;height:auto}
pre.ir{margin:0;counter-reset:ln}
pre.ir span.l{display:inline-block;min-width:100%;counter-increment:ln}
pre.ir span.l::before{content:counter(ln);display:inline-block;width:3em;
  color:#aaa;text-align:right;margin-right:1em}
table{border-collapse:collapse}
th,td{padding:2px 8px;text-align:left;vertical-align:top;white-space:nowrap}
thead th{border-bottom:2px solid #999;position:sticky;top:0;background:#fff}
tbody tr:nth-child(even){background:#fafafa}
tr.first,span.l.first{outline:3px solid #c62828;font-weight:bold}
td.introduced,span.introduced{background:#ffd6d6;color:#8b0000}
td.failed,span.failed{background:#f3d1f4;color:#6a1b9a}
td.inherited,span.inherited{background:#fff3c4;color:#7a5c00}
td.ok{color:#2e7d32} td.none{color:#888}
.legend span{display:inline-block;padding:0 .5em;margin-right:.3em;border:1px solid}
.note{color:#666}
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def render_html(report: DiffReport) -> str:
    """One self-contained HTML page: header, verdict, FX graph (inline SVG) beside the
    optimized IR with diverging values highlighted, node table, pass table."""
    title = f"cuvil-debug diff: {report.model}"
    ir_after = _html_ir(report, Stage.OPT, report.ir_after)
    body = [
        f"<h1>cuvil-debug diff <code>{_e(report.model)}</code></h1>",
        _html_kv(_header_items(report)),
        _html_verdict(report),
        '<div class="panes">',
        f'<section class="pane"><h2>FX graph</h2>{_html_graph(report)}</section>',
        f'<section class="pane"><h2>Optimized IR</h2>{ir_after}</section>',
        "</div>",
        _html_ir_before(report),
        "<h2>Nodes</h2>",
        _html_nodes(report),
        "<h2>Passes</h2>",
        _html_passes(report),
        _html_notes(report),
    ]
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
            *body,
            "</body></html>\n",
        ]
    )


def _html_kv(items: list[tuple[str, str]]) -> str:
    rows = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in _labels(items))
    return f'<dl class="kv">{rows}</dl>'


def _html_verdict(report: DiffReport) -> str:
    items = [("mapping", line) for line in _mapping_lines(report)]
    if out := _outputs_line(report):
        items.append(("outputs", out))
    items += _failures(report) + [("note", n) for n in report.notes]
    if report.first:
        (_, first), *rest = _first_items(report, report.first)
        head = _e(f"{_MARK} First divergence: {first}")
        pos = [i for i, r in enumerate(report.rows) if r.name == report.first.node]
        if pos:
            head = f'<a href="#row-{pos[0]}">{head}</a>'
        nexts = [("next", f"{c}   # {why}") for c, why in _next_commands(report)]
        return _html_box("bad", head, rest + nexts + items)
    if report.diverged:
        return _html_box("warn", _e(_no_first_words(report)), items)
    return _html_box("good", _e(_clean_words(report)), items)


def _html_box(kind: str, head: str, items: list[tuple[str, str]]) -> str:
    body = f"<strong>{head}</strong>{_html_kv(items)}"
    return f'<section class="verdict {kind}">{body}</section>'


def _svg(report: DiffReport) -> str:
    """The graph as inline SVG, without graphviz's XML prolog and namespace URLs: HTML
    puts <svg> in the SVG namespace itself, and the page references nothing outside."""
    raw = _digraph(report, links=True).pipe(format="svg").decode("utf-8")
    svg = raw[raw.index("<svg") :]
    svg = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", svg)
    return re.sub(r"<!--.*?-->\n?", "", svg, flags=re.S)


def _html_graph(report: DiffReport) -> str:
    try:
        svg = _svg(report)
    except (graphviz.ExecutableNotFound, subprocess.CalledProcessError, OSError) as e:
        note = (
            f"graph not drawn: graphviz's dot failed or is not installed ({e}); "
            "the node table below has the same information. DOT source:"
        )
        dot = _e(render_dot(report))
        return f'<p class="note">{_e(note)}</p><pre class="dot">{dot}</pre>'
    legend = "".join(
        f'<span style="background:{fill};border-color:{border}">{_e(v)}</span>'
        for v, (_, fill, border) in _STYLE.items()
    )
    return f'<div class="graph">{svg}</div><p class="legend">{legend}</p>'


_DEF = re.compile(r"^\s*(%[\w.$-]+(?:\s*,\s*%[\w.$-]+)*)\s*=")
_BODY = re.compile(r"body\s*=\s*@([\w.$-]+)")
_FUNC = re.compile(r"^\s*func\s+@([\w.$-]+)")


def _ir_marks(report: DiffReport, stage: str) -> dict[str, list[str]]:
    """IR value name (no %) -> CSS classes, for the values of diverging nodes."""
    marks: dict[str, list[str]] = {}
    first = report.first
    for r in report.rows:
        s = r.stages.get(stage)
        verdict = _verdict(s) if s else Verdict.NONE
        name = s and (s.value or s.kernel)
        if not name or not verdict.bad:
            continue
        classes = marks.setdefault(name.lstrip("%"), [])
        classes.append(verdict)
        if first and first.node == r.name and first.stage == stage:
            classes.append("first")
    return marks


def _line_class(names: list[str], marks: dict[str, list[str]]) -> str:
    found = [c for n in names for c in marks.get(n, [])]
    verdicts = sorted({c for c in found if c in VERDICTS}, key=VERDICTS.index)
    return " ".join(["l", *verdicts[:1], *(["first"] if "first" in found else [])])


def _html_ir(report: DiffReport, stage: str, text: str | None) -> str:
    if not text:
        return '<p class="note">(no IR in this report)</p>'
    marks = _ir_marks(report, stage)
    bodies = set(_BODY.findall(text))  # fused bodies reuse names: never highlighted
    lines, func = [], None
    for line in text.splitlines():
        if m := _FUNC.match(line):
            func = m.group(1)
        d = _DEF.match(line) if func not in bodies else None
        names = [n.strip().lstrip("%") for n in d.group(1).split(",")] if d else []
        lines.append(f'<span class="{_line_class(names, marks)}">{_e(line)}</span>')
    return f'<pre class="ir">{chr(10).join(lines)}</pre>'


def _html_ir_before(report: DiffReport) -> str:
    if not report.ir_before:
        return ""
    ir = _html_ir(report, Stage.IR, report.ir_before)
    return f"<details><summary>IR before passes</summary>{ir}</details>"


def _html_nodes(report: DiffReport) -> str:
    heads = ("#", "node", "target", "source", "shape", *report.stages)
    head = "".join(f"<th>{_e(h)}</th>" for h in heads)
    cells = [_stage_cells(report.rows, stage) for stage in report.stages]
    first = report.first.node if report.first else None
    body = "".join(
        _html_node_row(report, pos, r, [c[pos] for c in cells], r.name == first)
        for pos, r in enumerate(report.rows)
    )
    head = f"<thead><tr>{head}</tr></thead>"
    return f'<table class="nodes">{head}<tbody>{body}</tbody></table>'


def _html_node_row(
    report: DiffReport, pos: int, r: NodeRow, cells: list[tuple[str, str]], first: bool
) -> str:
    index = f"{_MARK} {r.index}" if first else str(r.index)
    shape = f"{_shape(r.shape)} {r.dtype or ''}" if r.shape is not None else ""
    src = f"{r.source}: {r.code.strip()}" if r.code else r.source or ""
    tds = [
        f"<td>{_e(index)}</td>",
        f'<td title="{_e(chr(10).join(_node_details(r)))}">{_e(r.name)}</td>',
        f'<td title="{_e(r.target)}">{_e(_short_target(r.target, 32))}</td>',
        f'<td title="{_e(src)}">{_e(_short_source(r.source))}</td>',
        f"<td>{_e(shape)}</td>",
    ]
    for stage, (text, verdict) in zip(report.stages, cells):
        s = r.stages.get(stage)
        tip = _stage_details(stage, s) if s else [f"{stage}: not accounted for"]
        tds.append(
            f'<td class="{verdict}" title="{_e(chr(10).join(tip))}">{_e(text)}</td>'
        )
    cls = ' class="first"' if first else ""
    return f'<tr id="row-{pos}"{cls}>{"".join(tds)}</tr>'


def _html_value(v: Any) -> str:
    if isinstance(v, list | tuple):
        return ", ".join(_html_value(x) for x in v)
    if isinstance(v, dict):
        return json.dumps(v, default=str)
    return str(v)


def _html_passes(report: DiffReport) -> str:
    if not report.passes:
        return '<p class="note">(no pass table in this report)</p>'
    keys = list(dict.fromkeys(k for p in report.passes for k in p))
    culprit = report.first.pass_name if report.first else None
    head = "".join(f"<th>{_e(k)}</th>" for k in keys)
    rows = []
    for p in report.passes:
        cls = ' class="first"' if culprit and p.get("name") == culprit else ""
        tds = "".join(f"<td>{_e(_html_value(p.get(k, '')))}</td>" for k in keys)
        rows.append(f"<tr{cls}>{tds}</tr>")
    return (
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _html_notes(report: DiffReport) -> str:
    times = ", ".join(f"{k} {v:.3f} s" for k, v in report.timings.items())
    return f'<p class="note">{_e("timings: " + times)}</p>' if times else ""
