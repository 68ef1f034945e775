"""The pass timeline's list: one row per pass (changed or not, actions, milliseconds,
and what it did to the followed op)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from .history import Fate, PassStep

__all__ = ["PassList", "pass_row"]

FATE_STYLES = {
    "kept": "dim",
    "rewritten": "yellow",
    "fused": "bold green",
    "folded": "cyan",
    "merged": "magenta",
    "removed": "red",
    "created": "green",
}


def pass_row(step: PassStep, fate: Fate, width: int) -> Text:
    """``● fold-bn     20    78.8ms folded`` (● changed, · unchanged)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    changed = step.info.changed
    text.append("● " if changed else "· ", "bold yellow" if changed else "dim")
    text.append(f"{step.name:<{width}} ", "bold" if changed else "")
    text.append(f"{step.info.actions:>4} {step.ms:7.1f}ms ")
    if fate.kind not in ("absent", "untracked"):
        text.append(fate.kind, FATE_STYLES.get(fate.kind, ""))
    return text


class PassList(OptionList):
    """The passes in pipeline order; highlighting one shows it (OptionHighlighted)."""

    def fill(self, steps: list[PassStep], fates: list[Fate]) -> None:
        """(Re)write the rows, keeping the highlighted pass."""
        keep = self.highlighted
        width = max((len(s.name) for s in steps), default=0)
        self.clear_options()
        self.add_options(
            [Option(pass_row(s, f, width)) for s, f in zip(steps, fates, strict=True)]
        )
        if steps:
            self.highlighted = keep if keep is not None else 0

    def row(self, index: int) -> str:
        """Row `index` as plain text."""
        return str(self.get_option_at_index(index).prompt)
