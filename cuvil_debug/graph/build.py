"""`build_graph`: the FX graph (left) and the optimized IR (right) side by side, an edge
from each FX node to the op computing it, clusters per nn.Module path."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence

import graphviz

from cuvil.errors import CuvilError
from cuvil.ir import Module

from ..diff.model import DiffReport, NodeRow
from ..diff.render.cells import row_verdict, verdict_of
from ..diff.render.dot import FONT, dot_text, fx_node_attrs
from ..diff.status import Stage
from .ir_side import RETURN, ir_side, pick_function
from .scene import Item, Side, collapse, emit, remap_edges

__all__ = ["build_graph", "render", "FORMATS"]

FORMATS = ("svg", "png", "dot")

_NO_OP = "no op (folded away)"  # no op computes the node: folded, constant, dead
_CARRY = {"style": "dashed", "color": "#7986cb", "constraint": "false"}


def build_graph(
    module: Module | None,
    fx_graph: Sequence[NodeRow] | None = None,
    report: DiffReport | None = None,
    function: str | None = None,
    *,
    collapse_depth: int | None = None,
    links: bool = False,
) -> graphviz.Digraph:
    """The picture of `module`'s `function` (default: the entry) beside its FX graph.

    `fx_graph` describes the FX nodes (rows as `cuvil_debug.diff.capture.capture`
    makes them); without it the report's rows are used; with neither, only the IR
    side is drawn (its ops name their FX nodes). `report` (a diff) colours FX nodes
    and ops by verdict. `collapse_depth` draws each nn.Module at that depth as one
    node; `links` makes each FX node a link to ``#row-N`` (the HTML report's table).
    `module` None draws the FX side only."""
    rows = list(fx_graph if fx_graph is not None else report.rows if report else [])
    sides: list[Side] = []
    carried: dict[str, list[str]] = {}
    if module is not None:
        fn = pick_function(module, function)
        ir, carried = ir_side(module, fn, _opt_verdicts(report))
        sides.append(ir)
    if rows:
        sides.insert(0, _fx_side(rows, report, carried if module else None, links))
    cross = [
        (f"fx{pos}", target)
        for pos, r in enumerate(rows)
        for target in carried.get(RETURN if r.op == "output" else r.name, ())
    ]
    if collapse_depth is not None:
        for side in sides:
            renamed = collapse(side, collapse_depth, _NOUNS[side.name])
            cross = remap_edges(cross, renamed)
    return _digraph(sides, cross, report)


_NOUNS = {"fx": "FX nodes", "ir": "ops"}


def _digraph(sides: list[Side], cross, report: DiffReport | None) -> graphviz.Digraph:
    g = graphviz.Digraph("graph")
    title = "FX graph → optimized IR" if len(sides) > 1 else sides[0].label
    if report is not None:
        title += f": {report.model}"
    g.attr(rankdir="TB", fontname=FONT, label=dot_text(title), labelloc="t")
    g.attr(newrank="true", nodesep="0.25", ranksep="0.35")
    g.attr("node", shape="box", style="rounded,filled", fontname=FONT, fontsize="10")
    g.attr("edge", color="#888888", arrowsize="0.6")
    for side in sides:
        emit(g, side, fontname=FONT, style="rounded", color="#455a64")
    for a, b in cross:
        g.edge(a, b, **_CARRY)
    return g


def _opt_verdicts(report: DiffReport | None):
    if report is None:
        return None
    return {
        r.name: verdict_of(r.stages[Stage.OPT])
        for r in report.rows
        if Stage.OPT in r.stages
    }


def _fx_side(
    rows: list[NodeRow],
    report: DiffReport | None,
    carried: dict[str, list[str]] | None,
    links: bool,
) -> Side:
    side = Side("fx", "FX graph")
    ids = {r.name: f"fx{pos}" for pos, r in enumerate(rows)}
    first = report.first if report else None
    for pos, r in enumerate(rows):
        is_first = first is not None and first.node == r.name
        folded = carried is not None and r.op != "output" and r.name not in carried
        # a report says what became of the node; without one, say there is no op
        more = [_NO_OP] if folded and report is None else []
        attrs = fx_node_attrs(
            r, first.stage if is_first else None, shape=True, more=more
        )
        if report is None:
            attrs.update(fillcolor="#eeeeee" if folded else "#ffffff", color="#455a64")
        if folded:
            attrs["style"] = "rounded,filled,dashed"
        if links:  # the HTML page: a click on a node shows its table row
            attrs.update(URL=f"#row-{pos}", target="_self")
        verdict = row_verdict(r) if report else None
        side.add(Item(ids[r.name], attrs, r.module, None, verdict, (r.name,)))
        side.edges += [(ids[src], ids[r.name]) for src in r.inputs if src in ids]
    return side


def render(graph: graphviz.Digraph, fmt: str) -> str | bytes:
    """The picture in `fmt` (dot: the source; svg: text; png: bytes)."""
    if fmt == "dot":
        return graph.source
    try:
        data = graph.pipe(format=fmt)
    except graphviz.ExecutableNotFound as e:
        raise CuvilError(
            "graphviz's dot program is not installed; install graphviz or write "
            "--format dot"
        ) from e
    except subprocess.CalledProcessError as e:
        raise CuvilError(f"graphviz's dot failed: {e}") from e
    return data.decode("utf-8") if fmt == "svg" else data
