"""The TUI's keymap, declared once: the app's bindings and the `?` help screen read it."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

__all__ = ["Key", "KEYMAP", "bindings", "help_rows", "palette_keys"]


@dataclass(frozen=True)
class Key:
    key: str  # Textual's key name
    shown: str  # how the help screen writes it
    action: str  # the app's action (action_<name>)
    description: str
    # "app": the main screen's binding; "passes": the pass timeline screen's; "source":
    # the source pane binds it itself
    scope: str = "app"


KEYMAP: tuple[Key, ...] = (
    Key("g", "g", "goto_definition", "go to the definition of the first operand"),
    Key("u", "u", "next_use", "cycle through the uses of the first result"),
    Key("slash", "/", "search", "search op names, FX nodes and value names"),
    Key("l", "l", "toggle_locs", "show or fold loc(...) in the IR view"),
    Key("o", "o", "toggle_grouping", "outline: group by source line / nn.Module"),
    Key("f", "f", "filter", "outline: filter ops (empty: show all)"),
    Key(
        "enter",
        "enter",
        "pick_line",
        "source pane: select the ops of this line",
        "source",
    ),
    Key("b", "b", "bookmark", "bookmark the selected op (again: remove)"),
    Key("B", "B", "next_bookmark", "go to the next bookmark"),
    Key("y", "y", "copy_op", "copy the selected op's IR line"),
    Key("Y", "Y", "copy_reduce", "copy a cuvil-debug reduce command for its FX node"),
    Key("e", "e", "screenshot", "export the screen as SVG (for bug reports)"),
    Key("G", "G", "export_graph", "export the function's graph as SVG (FX beside IR)"),
    Key("ctrl+p", "ctrl+p", "command_palette", "command palette: every action by name"),
    # diff reports (diffactions.py)
    Key("n", "n", "next_divergence", "diff: next divergent op (first: the first one)"),
    Key("N", "N", "prev_divergence", "diff: previous divergent op"),
    Key("s", "s", "cycle_stage", "diff: colour by the next stage (ir, opt, native)"),
    Key("i", "i", "cycle_mode", "diff: propagated or isolated error"),
    Key("p", "p", "passes", "pass timeline: each pass's IR diff and the op's fate"),
    Key("m", "m", "memory", "memory view: the arena plan per kernel (escape: back)"),
    Key("tab", "tab", "focus_next", "next pane"),
    Key("question_mark", "?", "help", "this help"),
    Key("q", "q", "quit", "quit"),
    # the pass timeline (passes.py)
    Key("left_square_bracket", "[", "step(-1)", "timeline: previous pass", "passes"),
    Key("right_square_bracket", "]", "step(1)", "timeline: next pass", "passes"),
    Key(
        "left_curly_bracket",
        "{",
        "step_fate(-1)",
        "timeline: previous pass that did something to the op",
        "passes",
    ),
    Key(
        "right_curly_bracket",
        "}",
        "step_fate(1)",
        "timeline: next pass that did something to the op",
        "passes",
    ),
    Key("s", "s", "toggle_side", "timeline: unified or side-by-side diff", "passes"),
    Key("l", "l", "toggle_locs", "timeline: show or fold loc(...)", "passes"),
    Key(
        "enter",
        "enter",
        "follow",
        "timeline: follow the op on the diff's line",
        "passes",
    ),
    Key(
        "escape",
        "escape",
        "back",
        "timeline: back, selecting the followed op",
        "passes",
    ),
)


def bindings(scope: str = "app") -> list[Binding]:
    """The BINDINGS of the app (or of the screen of `scope`); tab stays Textual's own
    focus binding."""
    return [
        Binding(
            k.key,
            k.action,
            _short(k),
            key_display=k.shown,
            show=k.action in FOOTER and k.action != "command_palette",
        )
        for k in KEYMAP
        if k.key != "tab" and k.scope == scope
    ]


# the keys the footer shows, by the word it gives them (the rest: ? and Textual's own
# command palette key); fewer footer keys also open the app faster (a widget each)
FOOTER = {
    "help": "keys",
    "search": "search",
    "goto_definition": "definition",
    "next_use": "uses",
    "next_divergence": "divergence",
    "passes": "passes",
    "memory": "memory",
    "step(-1)": "prev pass",
    "step(1)": "next pass",
    "toggle_side": "side by side",
    "back": "back",
    "command_palette": "palette",  # the footer's own corner shows it
}


def _short(k: Key) -> str:
    return FOOTER.get(k.action, k.description)


def help_rows() -> list[tuple[str, str]]:
    return [(k.shown, k.description) for k in KEYMAP]


def palette_keys() -> list[Key]:
    """The app actions the command palette lists (every app key but the palette's own)."""
    return [k for k in KEYMAP if k.scope == "app" and k.action != "command_palette"]
