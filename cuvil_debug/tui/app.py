"""`cuvil-debug tui`: the Textual app. Panes (one module each): outline.py, irview.py,
inspector.py, source.py; the keymap is keymap.py. The app holds the selection: every
pane's pick comes here (`select`), and the app tells the other panes."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Input

from .data import FunctionView, ModuleView, OpInfo
from .help import HelpScreen
from .inspector import Inspector
from .irview import IRView
from .keymap import bindings
from .memdata import memory_model
from .memory import MemoryScreen
from .outline import Outline
from .source import SourcePane

__all__ = ["CuvilTUI"]


class CuvilTUI(App[None]):
    TITLE = "cuvil-debug tui"
    BINDINGS = bindings()
    CSS = """
    #top { height: 3fr; }
    #bottom { height: 2fr; }
    #outline { width: 1fr; min-width: 20; }
    #ir { width: 3fr; }
    #inspector { width: 1fr; }
    #source { width: 1fr; }
    #outline, #ir, #inspector, #source { border: round $primary-background; }
    #outline:focus, #ir:focus, #source:focus, #inspector:focus-within {
        border: round $accent;
    }
    #search { dock: bottom; display: none; }
    #search.open { display: block; }
    """

    def __init__(self, view: ModuleView, **kw) -> None:
        super().__init__(**kw)
        self.view = view
        self.selected: OpInfo | None = None
        self._uses: list[OpInfo] = []  # the use cycle of `u`: the uses being walked
        self._use_pos = -1

    def compose(self) -> ComposeResult:
        with Vertical():
            with Horizontal(id="top"):
                yield Outline(self.view, id="outline")
                yield IRView(id="ir")
            with Horizontal(id="bottom"):
                yield Inspector(self.view, id="inspector")
                yield SourcePane(self.view, id="source")
        yield Input(placeholder="search: op, FX node or %value", id="search")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#outline").border_title = "outline"
        self.query_one("#inspector").border_title = "op"
        self._plan_small_module()
        ir = self.query_one(IRView)
        main = self.view.main
        if main is not None:
            ir.show(main)
            if main.ops:
                self.select(main.ops[0])
        ir.focus()

    # ---- the selection ------------------------------------------------------------------
    def select(self, info: OpInfo) -> None:
        """Make `info` the selected op in every pane."""
        if info is self.selected:
            return
        self.selected = info
        fn = self.view.function(info.func)
        ir = self.query_one(IRView)
        if fn is not None:
            ir.show(fn)
        ir.select_op(info)
        self.query_one(Inspector).show(info)
        self.query_one(SourcePane).show(info)
        self.query_one(Outline).reveal(info)
        self.sub_title = f"{info.label}  {info.source or ''}"

    def show_function(self, fn: FunctionView) -> None:
        self.query_one(IRView).show(fn)
        if fn.ops:
            self.select(fn.ops[0])

    def on_irview_picked(self, event: IRView.Picked) -> None:
        self.select(event.info)

    def on_outline_picked(self, event: Outline.Picked) -> None:
        target = event.target
        if isinstance(target, FunctionView):
            self.show_function(target)
        else:
            self.select(target)

    # ---- actions (keymap.py) ------------------------------------------------------------
    def action_goto_definition(self) -> None:
        info = self.selected
        if info is None:
            return
        target = self.view.definition(info)
        if target is not None:
            self.select(target)
        elif info.operands:
            self.notify(f"{info.operands[0]} is an argument of @{info.func}")
        else:
            self.notify(f"{info.name} has no operand")

    def action_next_use(self) -> None:
        info = self.selected
        if info is None:
            return
        walking = 0 <= self._use_pos < len(self._uses)
        if not (walking and self._uses[self._use_pos] is info):
            self._uses, self._use_pos = self.view.uses(info), -1
            if not self._uses:
                self.notify(f"{info.label}: its first result has no use")
                return
        self._use_pos = (self._use_pos + 1) % len(self._uses)
        self.select(self._uses[self._use_pos])
        self.notify(f"use {self._use_pos + 1} of {len(self._uses)}")

    def action_search(self) -> None:
        box = self.query_one("#search", Input)
        box.add_class("open")
        box.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        box = event.input
        box.remove_class("open")
        self.query_one(IRView).focus()
        after = self.selected.index if self.selected else -1
        found = self.view.search(event.value, after)
        if found is None:
            self.notify(f"no match for {event.value!r}", severity="warning")
        else:
            self.select(found)

    def action_toggle_locs(self) -> None:
        self.query_one(IRView).toggle_locs()

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    # ---- the memory plan (memdata.py, memory.py) ----------------------------------------
    PLAN_INLINE_OPS = (
        2000  # up to this many ops the plan is made before the first frame
    )

    def _plan_small_module(self) -> None:
        """Plan a small module at once (~10 ms for the samples), so the inspector has
        its kernel rows from the first op; a bigger one (10k ops: ~0.4 s) when `m`
        first opens the memory view."""
        main = self.view.main
        if main is not None and len(main.ops) <= self.PLAN_INLINE_OPS:
            memory_model(self.view)

    def action_memory(self) -> None:
        if isinstance(self.screen, MemoryScreen):
            self.screen.dismiss(None)
        else:
            screen = MemoryScreen(memory_model(self.view), self.selected)
            self.push_screen(screen, self._memory_picked)

    def _memory_picked(self, info: OpInfo | None) -> None:
        if info is not None:
            self.select(info)
        elif self.selected is not None:  # the plan may be new: the inspector's rows
            self.query_one(Inspector).show(self.selected)
