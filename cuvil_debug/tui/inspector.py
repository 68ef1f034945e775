"""Op inspector: result types and layouts, attributes, the location chain (a FusedLoc's
members), the FX node(s), operands with their definitions, and a fused op's members."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from cuvil.ir.attributes import format_attr

from .data import ModuleView, OpInfo
from .memdata import kernel_rows, planned

__all__ = ["Inspector", "describe"]


def describe(view: ModuleView, info: OpInfo) -> list[tuple[str, str]]:
    """The inspector's rows as (field, value) text: what the tests and the pane read."""
    op = info.op
    rows: list[tuple[str, str]] = [("op", op.name), ("function", f"@{info.func}")]
    for name, r in zip(info.results, op.results, strict=True):
        rows.append(("result", f"{name}: {r.type}"))
        rows.append(("layout", r.type.layout))
    for name, v in zip(info.operands, op.operands, strict=True):
        owner = view.info(v.owner) if v.owner is not None else None
        where = f"#{owner.pos} {owner.name}" if owner else "argument"
        rows.append(("operand", f"{name}: {v.type} ({where})"))
    for key, value in sorted(op.attrs.items()):
        if value is not None:
            rows.append(("attr", f"{key} = {format_attr(value)}"))
    parts = op.loc.parts or ()
    if not parts:
        rows.append(("loc", "unknown"))
    for part in parts:
        rows.append(("loc", part.describe()))
    rows.append(("fx node", ", ".join(info.fx_nodes) or "(none)"))
    rows.append(("uses", str(len(view.uses(info)))))
    body = view.members(info)
    if body is not None:
        rows.append(("body", f"@{body.name}"))
        rows += [("member", m.label) for m in body.ops]
    rows += kernel_rows(planned(view), info)  # memdata.py: symbol, slot, lifetime
    return rows


class Inspector(VerticalScroll):
    """The selected op's details (a Static in a scroll container)."""

    def __init__(self, view: ModuleView, **kw) -> None:
        super().__init__(**kw)
        self.view = view
        self.rows: list[tuple[str, str]] = []
        self._body = Static(Text("no op selected", "dim"))

    def compose(self):
        yield self._body

    def show(self, info: OpInfo) -> None:
        self.rows = describe(self.view, info)
        table = Table.grid(padding=(0, 1))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for key, value in self.rows:
            table.add_row(key, value)
        self._body.update(Group(table))
        self.scroll_home(animate=False)

    def text(self) -> str:
        """The rows as plain text, one per line."""
        return "\n".join(f"{k}: {v}" for k, v in self.rows)
