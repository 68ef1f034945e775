"""``--format dot``: the FX graph, coloured by verdict. Its node drawing (`fx_node_attrs`,
`dot_text`) is shared with `cuvil-debug graph` (cuvil_debug/graph/), so an FX node looks
the same in both pictures."""

from __future__ import annotations

from collections.abc import Sequence

import graphviz

from ..model import DiffReport, NodeRow
from ..status import Verdict
from .cells import STYLE, VERDICTS, cell, short_target, verdict_of
from .words import node_details, shape_text

__all__ = ["FONT", "dot_text", "fx_node_attrs", "digraph", "render_dot"]

FONT = "Helvetica,Arial,sans-serif"


def dot_text(*parts: str) -> str:
    """One label from lines: backslashes of the text kept, never HTML-like."""
    return graphviz.nohtml("\\n".join(p.replace("\\", "\\\\") for p in parts))


def _focus_stage(r: NodeRow, first_stage: str | None) -> str | None:
    """The stage a graph node shows (and is coloured by): the first divergence's, else
    the earliest stage with its worst verdict, else the last stage: what it became."""
    if first_stage in r.stages:
        return first_stage
    bad = [st for st, s in r.stages.items() if verdict_of(s).bad]
    if bad:
        return min(bad, key=lambda st: VERDICTS.index(verdict_of(r.stages[st])))
    return next(reversed(r.stages), None)


def digraph(report: DiffReport) -> graphviz.Digraph:
    g = graphviz.Digraph("fx")
    g.attr(rankdir="TB", fontname=FONT, label=dot_text(f"FX graph: {report.model}"))
    g.attr("node", shape="box", style="rounded,filled", fontname=FONT, fontsize="10")
    g.attr("edge", color="#888888", arrowsize="0.6")
    ids = {r.name: f"n{pos}" for pos, r in enumerate(report.rows)}
    first = report.first
    for r in report.rows:
        is_first = first is not None and first.node == r.name
        g.node(ids[r.name], **fx_node_attrs(r, first.stage if is_first else None))
    for r in report.rows:
        for src in r.inputs:
            if src in ids:
                g.edge(ids[src], ids[r.name])
    return g


def fx_node_attrs(
    r: NodeRow,
    first_stage: str | None = None,
    *,
    shape: bool = False,
    more: Sequence[str] = (),
) -> dict[str, str]:
    """One FX node's DOT attributes: name, target (and `shape`), the stage it is shown
    in with its cell text (then the lines `more`), filled by that cell's verdict;
    `first_stage` (the first divergence is this node's, in that stage) outlines it
    thick and red."""
    stage = _focus_stage(r, first_stage)
    _, fill, border = STYLE[verdict_of(r.stages[stage]) if stage else Verdict.NONE]
    lines = [r.name, short_target(r.target, 32)]
    if shape and r.shape is not None:
        lines.append(f"{shape_text(r.shape)} {r.dtype or ''}".rstrip())
    if stage:
        lines.append(f"{stage}: {cell(r.stages[stage], stage)[0]}")
    lines += more
    attrs = {
        "label": dot_text(*lines),
        "fillcolor": fill,
        "color": border,
        "tooltip": dot_text(*node_details(r)),
    }
    if first_stage:
        attrs.update(penwidth="4", color=STYLE[Verdict.INTRODUCED][2])
    return attrs


def render_dot(report: DiffReport) -> str:
    """The FX graph in DOT: nodes coloured by verdict (green ok, yellow inherited, red
    introduced, grey folded/removed/fused-only), the first divergence outlined thick."""
    return digraph(report).source
