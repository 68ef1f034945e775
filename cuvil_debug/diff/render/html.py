"""``--format html``: one self-contained page (inline CSS and SVG, no scripts)."""

from __future__ import annotations

import html
import json
import re
import subprocess
from typing import Any

import graphviz

from cuvil.errors import CuvilError
from cuvil.ir import parse_module

from ..model import DiffReport, NodeRow
from ..status import Stage, Status
from .cells import (
    MARK,
    STYLE,
    VERDICTS,
    short_source,
    short_target,
    stage_cells,
    verdict_of,
)
from .dot import render_dot
from .words import (
    clean_words,
    failures,
    first_items,
    header_items,
    labels,
    mapping_lines,
    next_commands,
    no_first_words,
    node_details,
    outputs_line,
    shape_text,
    stage_details,
    trial_items,
)

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
.pane{border:1px solid #ddd;border-radius:6px;padding:.5em;margin:1em 0}
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
    ir_after = _html_ir(report, (Stage.OPT, Stage.NATIVE), report.ir_after)
    body = [
        f"<h1>cuvil-debug diff <code>{_e(report.model)}</code></h1>",
        _html_kv(header_items(report)),
        _html_verdict(report),
        '<section class="pane"><h2>FX graph → optimized IR</h2>'
        f"{_html_graph(report)}</section>",
        f'<section class="pane"><h2>Optimized IR</h2>{ir_after}</section>',
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
    rows = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in labels(items))
    return f'<dl class="kv">{rows}</dl>'


def _html_verdict(report: DiffReport) -> str:
    items = [("mapping", line) for line in mapping_lines(report)]
    if out := outputs_line(report):
        items.append(("outputs", out))
    items += trial_items(report)
    items += failures(report) + [("note", n) for n in report.notes]
    if report.first:
        (_, first), *rest = first_items(report, report.first)
        head = _e(f"{MARK} First divergence: {first}")
        pos = [i for i, r in enumerate(report.rows) if r.name == report.first.node]
        if pos:
            head = f'<a href="#row-{pos[0]}">{head}</a>'
        nexts = [("next", f"{c}   # {why}") for c, why in next_commands(report)]
        return _html_box("bad", head, rest + nexts + items)
    if report.diverged:
        return _html_box("warn", _e(no_first_words(report)), items)
    return _html_box("good", _e(clean_words(report)), items)


def _html_box(kind: str, head: str, items: list[tuple[str, str]]) -> str:
    body = f"<strong>{head}</strong>{_html_kv(items)}"
    return f'<section class="verdict {kind}">{body}</section>'


def _svg(report: DiffReport) -> str:
    """`cuvil-debug graph`'s picture (the FX graph beside the optimized IR, read back
    from the report's text) as inline SVG, without graphviz's XML prolog and namespace
    URLs: HTML puts <svg> in the SVG namespace itself, and the page references nothing
    outside. IR text that does not parse leaves the FX side alone."""
    # here, not at the top: cuvil_debug.graph draws its FX nodes with .dot, so
    # importing it while this package loads would be circular
    from ...graph import build_graph

    try:
        module = parse_module(report.ir_after) if report.ir_after else None
    except CuvilError:
        module = None
    graph = build_graph(module, report=report, links=True)
    raw = graph.pipe(format="svg").decode("utf-8")
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
        for v, (_, fill, border) in STYLE.items()
    )
    return f'<div class="graph">{svg}</div><p class="legend">{legend}</p>'


_DEF = re.compile(r"^\s*(%[\w.$-]+(?:\s*,\s*%[\w.$-]+)*)\s*=")


_BODY = re.compile(r"body\s*=\s*@([\w.$-]+)")


_FUNC = re.compile(r"^\s*func\s+@([\w.$-]+)")


def _ir_marks(report: DiffReport, *stages: str) -> dict[str, list[str]]:
    """IR value name (no %) -> CSS classes, for the values of diverging nodes in
    `stages` (the optimized IR shows opt's and native's: native runs that module)."""
    marks: dict[str, list[str]] = {}
    first = report.first
    for r in report.rows:
        for stage in stages:
            s = r.stages.get(stage)
            name = _ir_name(r, stage)
            if not name or not verdict_of(s).bad:
                continue
            classes = marks.setdefault(name.lstrip("%"), [])
            classes.append(verdict_of(s))
            if first and first.node == r.name and first.stage == stage:
                classes.append("first")
    return marks


def _ir_name(r: NodeRow, stage: str) -> str | None:
    """The IR value of row `r` in `stage`'s module: its own value, or for a node fused
    away the fused op's (native kernels are symbols: opt names the op in the IR)."""
    s = r.stages.get(stage)
    if s is None:
        return None
    if s.status != Status.FUSED:
        return s.value or s.kernel
    if stage == Stage.NATIVE:
        opt = r.stages.get(Stage.OPT)
        return opt.kernel if opt and opt.status == Status.FUSED else None
    return s.kernel or s.value


def _line_class(names: list[str], marks: dict[str, list[str]]) -> str:
    found = [c for n in names for c in marks.get(n, [])]
    verdicts = sorted({c for c in found if c in VERDICTS}, key=VERDICTS.index)
    return " ".join(["l", *verdicts[:1], *(["first"] if "first" in found else [])])


def _html_ir(report: DiffReport, stages: tuple[str, ...], text: str | None) -> str:
    if not text:
        return '<p class="note">(no IR in this report)</p>'
    marks = _ir_marks(report, *stages)
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
    ir = _html_ir(report, (Stage.IR,), report.ir_before)
    return f"<details><summary>IR before passes</summary>{ir}</details>"


def _html_nodes(report: DiffReport) -> str:
    heads = ("#", "node", "target", "source", "shape", *report.stages)
    head = "".join(f"<th>{_e(h)}</th>" for h in heads)
    cells = [stage_cells(report.rows, stage) for stage in report.stages]
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
    index = f"{MARK} {r.index}" if first else str(r.index)
    shape = f"{shape_text(r.shape)} {r.dtype or ''}" if r.shape is not None else ""
    src = f"{r.source}: {r.code.strip()}" if r.code else r.source or ""
    tds = [
        f"<td>{_e(index)}</td>",
        f'<td title="{_e(chr(10).join(node_details(r)))}">{_e(r.name)}</td>',
        f'<td title="{_e(r.target)}">{_e(short_target(r.target, 32))}</td>',
        f'<td title="{_e(src)}">{_e(short_source(r.source))}</td>',
        f"<td>{_e(shape)}</td>",
    ]
    for stage, (text, verdict) in zip(report.stages, cells):
        s = r.stages.get(stage)
        tip = stage_details(stage, s) if s else [f"{stage}: not accounted for"]
        tds.append(
            f'<td class="{verdict}" title="{_e(chr(10).join(tip))}">{_e(text)}</td>'
        )
    cls = ' class="first"' if first else ""
    return f'<tr id="row-{pos}"{cls}>{"".join(tds)}</tr>'


def _html_value(v: Any) -> str:
    """A pass-table cell: yes/no for booleans, – for nothing (not Python's words)."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return "–"
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
