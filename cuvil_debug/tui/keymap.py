"""The TUI's keymap, declared once: the app's bindings and the `?` help screen read it."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

__all__ = ["Key", "KEYMAP", "bindings", "help_rows"]


@dataclass(frozen=True)
class Key:
    key: str  # Textual's key name
    shown: str  # how the help screen writes it
    action: str  # the app's action (action_<name>)
    description: str


KEYMAP: tuple[Key, ...] = (
    Key("g", "g", "goto_definition", "go to the definition of the first operand"),
    Key("u", "u", "next_use", "cycle through the uses of the first result"),
    Key("slash", "/", "search", "search op names, FX nodes and value names"),
    Key("l", "l", "toggle_locs", "show or fold loc(...) in the IR view"),
    Key("m", "m", "memory", "memory view: the arena plan per kernel (escape: back)"),
    Key("tab", "tab", "focus_next", "next pane"),
    Key("question_mark", "?", "help", "this help"),
    Key("q", "q", "quit", "quit"),
)


def bindings() -> list[Binding]:
    """The app's BINDINGS (tab stays Textual's own focus binding)."""
    return [
        Binding(k.key, k.action, k.description, key_display=k.shown)
        for k in KEYMAP
        if k.key != "tab"
    ]


def help_rows() -> list[tuple[str, str]]:
    return [(k.shown, k.description) for k in KEYMAP]
