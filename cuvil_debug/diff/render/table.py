"""``--format table``: the terminal table (rich), header and summary included."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..model import DiffReport, NodeRow
from . import words
from .cells import MARK, STYLE, row_verdict, short_source, short_target, stage_cells


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


def _shown(report: DiffReport, all_rows: bool) -> list[NodeRow]:
    """Tensor nodes, plus any node that diverges or is the first divergence."""
    first = report.first.node if report.first else None
    return [
        r
        for r in report.rows
        if all_rows or r.is_tensor or r.name == first or row_verdict(r).bad
    ]


def _grid(items: list[tuple[str, str | Text]]) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column()
    for label, value in words.labels(items):
        grid.add_row(Text(label), value if isinstance(value, Text) else Text(value))
    return grid


def _rich_header(report: DiffReport) -> Table:
    title = Text.assemble(("cuvil-debug diff ", "bold"), (report.model, "bold cyan"))
    grid = Table.grid()
    grid.add_row(title)
    grid.add_row(_grid(words.header_items(report)))
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
    cells = [stage_cells(rows, stage) for stage in report.stages]
    first = report.first.node if report.first else None
    for i, r in enumerate(rows):
        is_first = r.name == first
        index = Text(f"{MARK} {r.index}" if is_first else str(r.index))
        t.add_row(
            index,
            Text(r.name),
            Text(short_target(r.target)),
            Text(short_source(r.source), "dim"),
            *(Text(c[i][0], STYLE[c[i][1]][0]) for c in cells),
            style="bold red" if is_first else None,
        )
    return t


def _rich_summary(report: DiffReport) -> Table:
    items: list[tuple[str, str | Text]] = [
        ("mapping", line) for line in words.mapping_lines(report)
    ]
    if out := words.outputs_line(report):
        items.append(("outputs", out))
    if report.first:
        mark, *rest = words.first_items(report, report.first)
        items.append((mark[0], Text(f"{MARK} {mark[1]}", "bold red")))
        items += rest
        items += [
            ("next", Text(f"{c}   # {why}", "cyan"))
            for c, why in words.next_commands(report)
        ]
    elif report.diverged:
        items.append(("verdict", Text(words.no_first_words(report), "bold yellow")))
    else:
        items.append(("verdict", Text(words.clean_words(report), "bold green")))
    items += words.trial_items(report)
    items += words.failures(report) + [("note", n) for n in report.notes]
    return _grid(items)
