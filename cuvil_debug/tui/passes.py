"""The pass timeline screen (`p`): the passes on the left, the selected pass's IR diff on
the right, and what the pass did to the followed op (its fate, history.py).

The screen only shows a PassHistory; every fact on it comes from history.py and
passdiff.py. It returns the op it followed last (an OpKey) when it was changed here
(enter on a diff line), so the app can select that op in the final IR.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static

from .diffview import DiffView
from .history import OpKey, PassHistory, PassStep
from .keymap import KEYMAP, bindings
from .passdiff import DiffRow, context_rows, side_by_side, unified
from .passlist import PassList

__all__ = ["PassesScreen", "NO_HISTORY"]

NO_HISTORY = (
    "no pass history: this .cuvilir file is shown as written. Run a pipeline to "
    "record one: cuvil-debug tui FILE -O3 (or -p 'fold-bn,dce')"
)
NO_PASSES = "the pipeline ran no pass (-O0 or an empty -p)"
# keys of the main screen that need its panes: they do nothing here
_KEPT = {"help", "quit", "focus_next"}
_QUIET = {"kept", "absent", "untracked"}  # fates `{`/`}` step over


def _inert() -> list[Binding]:
    own = {k.key for k in KEYMAP if k.scope == "passes"}
    return [
        Binding(k.key, "nothing", show=False)
        for k in KEYMAP
        if k.scope == "app" and k.action not in _KEPT and k.key not in own
    ]


class PassesScreen(Screen[OpKey | None]):
    """The timeline of `history` following the op of `key` (`label` names it)."""

    BINDINGS = [*bindings("passes"), *_inert()]
    DEFAULT_CSS = """
    PassesScreen #pass-list { width: 47; border: round $primary-background; }
    PassesScreen #diff { border: round $primary-background; }
    PassesScreen #pass-list:focus, PassesScreen #diff:focus { border: round $accent; }
    PassesScreen #pass-head, PassesScreen #fate { height: auto; padding: 0 1; }
    PassesScreen #fate { color: $text; background: $boost; }
    /* under 120 columns (the app's breakpoints): the list above the diff */
    PassesScreen.-narrow > Horizontal { layout: vertical; }
    PassesScreen.-narrow #pass-list { width: 100%; height: auto; max-height: 40%; }
    """

    def __init__(
        self, history: PassHistory | None, key: OpKey | None, label: str = ""
    ) -> None:
        super().__init__()
        self.history = history
        self.key = key
        self.label = label
        self.index = 0
        self.followed = False  # the key was changed here (enter)
        self._rows: dict[tuple[int, bool], list[DiffRow]] = {}

    @property
    def steps(self) -> list[PassStep]:
        return self.history.steps if self.history is not None else []

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield PassList(id="pass-list")
            with Vertical():
                yield Static(id="pass-head")
                yield Static(id="fate")
                yield DiffView(id="diff")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#pass-list").border_title = "passes"
        if not self.steps:
            self.query_one("#pass-head", Static).update(
                NO_HISTORY if self.history is None else NO_PASSES
            )
            return
        self._fill_list()
        self.show(0)
        self.query_one(PassList).focus()

    def _fill_list(self) -> None:
        self.query_one(PassList).fill(self.steps, self.history.fates(self.key))

    # ---- showing a pass -----------------------------------------------------------------
    def show(self, index: int) -> None:
        """Show pass `index`: its table row, the op's fate there, its diff."""
        self.index = index
        step = self.steps[index]
        self.query_one("#pass-head", Static).update(self.head_text())
        self.query_one("#fate", Static).update(self.fate_text())
        diff = self.query_one(DiffView)
        diff.border_title = f"{step.name}: {'side by side' if diff.side else 'unified'}"
        key = self.key
        before = step.before.marked_lines(key) if key else set()
        after = step.after.marked_lines(key) if key else set()
        diff.show(self._diff_rows(step, diff.side, after), before, after)

    def _diff_rows(self, step: PassStep, side: bool, marked: set[int]) -> list[DiffRow]:
        before, after = step.before.lines, step.after.lines
        if before is None or after is None:
            return [DiffRow("@", None, None, "IR text not kept (history over its cap)")]
        if step.before is step.after:
            return [DiffRow("@", None, None, "unchanged")] + context_rows(after, marked)
        if (step.index, side) not in self._rows:
            make = side_by_side if side else unified
            self._rows[step.index, side] = make(before, after)
        return self._rows[step.index, side]

    def head_text(self) -> str:
        step = self.steps[self.index]
        what = "changed" if step.info.changed else "unchanged"
        return (
            f"pass {self.index + 1}/{len(self.steps)} {step.name}: {what}, "
            f"{step.info.actions} action(s), {step.ms:.2f} ms"
        )

    def fate_text(self) -> str:
        """The followed op and its fate at this pass (a fused kernel: its members)."""
        fate = self.history.fate(self.index, self.key)
        text = f"{self.label or 'op'}: {fate.text}"
        if fate.kernel is not None:
            members = ", ".join(m.label for m in fate.members)
            text += f"\nmembers of @{fate.kernel.body}: {members}"
        return text

    def on_option_list_option_highlighted(
        self, event: OptionList.OptionHighlighted
    ) -> None:
        if event.option_index != self.index:
            self.show(event.option_index)

    # ---- actions (keymap.py, scope "passes") --------------------------------------------
    def action_step(self, delta: int) -> None:
        if self.steps:
            index = max(0, min(len(self.steps) - 1, self.index + delta))
            self.query_one(PassList).highlighted = index
            self.show(index)

    def action_step_fate(self, direction: int) -> None:
        """To the nearest pass in `direction` whose fate for the op is not kept/absent."""
        fates = self.history.fates(self.key) if self.steps else []
        index = self.index + direction
        while 0 <= index < len(fates) and fates[index].kind in _QUIET:
            index += direction
        if 0 <= index < len(fates):
            self.action_step(index - self.index)
        else:
            self.notify("no further pass touched the op")

    def action_toggle_side(self) -> None:
        diff = self.query_one(DiffView)
        diff.side = not diff.side
        if self.steps:
            self.show(self.index)

    def action_toggle_locs(self) -> None:
        self.query_one(DiffView).toggle_locs()

    def action_follow(self) -> None:
        """Follow the op on the diff's cursor row (its after line, else its before)."""
        row = self.query_one(DiffView).current
        if row is None or not self.steps:
            return
        step = self.steps[self.index]
        record = (step.after.at_line(row.right) if row.right is not None else None) or (
            step.before.at_line(row.left) if row.left is not None else None
        )
        if record is None:
            self.notify("no op on this line", severity="warning")
            return
        self.key, self.label, self.followed = OpKey.of(record), record.label, True
        self._fill_list()
        self.show(self.index)
        self.notify(f"following {record.label}")

    def action_back(self) -> None:
        self.dismiss(self.key if self.followed else None)

    def action_nothing(self) -> None:
        """A main-screen key that needs the main screen's panes."""
