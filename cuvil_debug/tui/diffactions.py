"""The diff overlay's part of the app: a mixin of CuvilTUI (app.py) holding the keys
`n`/`N` (next / previous divergent op), `s` (cycle the stage) and `i` (propagated or
isolated), and what the overlay adds to the panes (IR view colours, the inspector's
diff section, the first divergence's mark in the outline). Without a report
(`self.diff` None) every part of it does nothing."""

from __future__ import annotations

from .data import OpInfo
from .diffdata import DiffOverlay
from .diffpane import DiffSection, op_style
from .inspector import Inspector
from .irview import IRView
from .outline import Outline

__all__ = ["DiffActions"]


class DiffActions:
    """Mixed into CuvilTUI: `self` is the App (query_one, notify, select, selected)."""

    diff: DiffOverlay | None = None
    _diff_started = False  # has `n`/`N` moved yet? the first `n` goes to `first`

    def setup_diff(self) -> None:
        """Called once the panes are mounted."""
        overlay = self.diff
        if overlay is None:
            return
        ir = self.query_one(IRView)
        ir.op_style = lambda info: op_style(overlay, info)
        # on top of the op's rows: the bottom pane is short, the metrics come first
        self.query_one(Inspector).mount(DiffSection(overlay, id="diff"), before=0)
        if overlay.first_op is not None:
            self.query_one(Outline).mark(overlay.first_op, "▶ ")
        self._diff_title()

    def diff_follow(self, info: OpInfo) -> None:
        """The selection moved to `info`."""
        if self.diff is not None:
            self.query_one(DiffSection).show(info)

    def _diff_title(self) -> None:
        d = self.diff
        first = d.first
        where = f"▶ {first['node']} ({first['stage']})" if first else "no divergence"
        ir = self.query_one(IRView)
        ir.border_subtitle = f"diff: {d.stage} · {d.mode} · {where}"
        ir.refresh()

    def _need_diff(self) -> bool:
        if self.diff is None:
            self.notify("no diff report: open one (cuvil-debug tui diff.json)")
            return False
        return True

    def action_next_divergence(self) -> None:
        self._step(1)

    def action_prev_divergence(self) -> None:
        self._step(-1)

    def _step(self, direction: int) -> None:
        if not self._need_diff():
            return
        d = self.diff
        target = None
        if direction > 0 and not self._diff_started:
            target = d.first_op
        self._diff_started = True
        target = target or d.step(self.selected, direction)
        if target is None:
            self.notify(f"no divergent op in stage {d.stage} ({d.mode})")
            return
        self.select(target)

    def action_cycle_stage(self) -> None:
        if self._need_diff():
            self.notify(f"diff stage: {self.diff.cycle_stage()}")
            self._diff_redraw()

    def action_cycle_mode(self) -> None:
        if not self._need_diff():
            return
        if len(self.diff.modes) < 2:
            self.notify("the report has no isolated runs: propagated only")
            return
        self.notify(f"diff mode: {self.diff.cycle_mode()}")
        self._diff_redraw()

    def _diff_redraw(self) -> None:
        self._diff_title()
        if self.selected is not None:
            self.diff_follow(self.selected)
