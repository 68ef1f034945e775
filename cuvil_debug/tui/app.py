"""`cuvil-debug tui`: the Textual app. Panes (one module each): outline.py, irview.py,
inspector.py, source.py; actions without a pane are tools.py; the keymap is keymap.py.
The app holds the selection: every pane's pick comes here (`select`), and the app tells
the other panes.

The app is made from a ModuleView, or from a loader run in a worker thread (loading.py)
while a progress pane shows what it does; the panes are composed when the view is there.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Container
from textual.widgets import Footer, Input
from textual.worker import Worker, WorkerState

from .data import FunctionView, ModuleView, OpInfo
from .diffactions import DiffActions
from .diffdata import DiffOverlay
from .help import HelpScreen
from .history import OpKey, PassHistory
from .inspector import Inspector
from .irview import IRView
from .keymap import bindings
from .loading import Loaded, Loader, LoadingPane
from .memdata import memory_model
from .memory import MemoryScreen
from .outline import Outline
from .passes import PassesScreen
from .source import SourcePane
from .tools import ToolActions

__all__ = ["CuvilTUI"]

# actions that work on any screen, and while loading
_ANYWHERE = frozenset({"quit", "help", "command_palette", "screenshot", "focus_next"})


class CuvilTUI(DiffActions, ToolActions, App[None]):
    TITLE = "cuvil-debug tui"
    BINDINGS = [*bindings(), Binding("escape", "close_prompt", show=False)]
    # below 120 columns: outline | IR over inspector | source; 120 and wider: outline,
    # IR over source, inspector in three columns (each pane keeps its full height)
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    CSS = """
    #panes { layout: grid; grid-size: 3 2; grid-columns: 1fr 1fr 2fr; grid-rows: 3fr 2fr; }
    #ir, #inspector { column-span: 2; }
    Screen.-wide #panes { grid-columns: 1fr 3fr 1fr; }
    Screen.-wide #outline { row-span: 2; }
    Screen.-wide #ir { column-span: 1; }
    Screen.-wide #inspector { column-span: 1; row-span: 2; }
    #outline, #ir, #inspector, #source { border: round $primary-background; }
    #outline:focus, #ir:focus, #source:focus, #inspector:focus-within {
        border: round $accent;
    }
    .prompt { dock: bottom; display: none; }
    .prompt.open { display: block; }
    """

    def __init__(
        self,
        view: ModuleView | None = None,
        *,
        diff: DiffOverlay | None = None,
        history: PassHistory | None = None,
        loader: Loader | None = None,
        what: str = "",
        repro_args: list[str] | None = None,
        screenshot_dir: Path | None = None,
        **kw,
    ) -> None:
        super().__init__(**kw)
        if (view is None) == (loader is None):
            raise ValueError("CuvilTUI needs a view or a loader, not both")
        self.view = view
        self.loader = loader
        self.what = what
        self.load_error: BaseException | None = None  # the loader's, for run_tui
        self.diff = diff  # a diff report over the view (diffactions.py), or None
        self.history = history  # the pass timeline's (None: no pipeline ran)
        self.selected: OpInfo | None = None
        self.repro_args = repro_args
        self.screenshot_dir = screenshot_dir or Path.cwd()
        self.last_screenshot: Path | None = None
        self.last_graph: Path | None = None
        self.bookmarks: set[int] = set()
        self._uses: list[OpInfo] = []  # the use cycle of `u`: the uses being walked
        self._use_pos = -1
        self._line_ops: list[OpInfo] = []  # the source line's ops being walked

    def compose(self) -> ComposeResult:
        if self.view is None:
            yield LoadingPane(self.what, id="loading")
            return
        with Container(id="panes"):
            yield Outline(self.view, id="outline")
            yield IRView(id="ir")
            yield Inspector(self.view, id="inspector")
            yield SourcePane(self.view, id="source")
        yield Input(
            placeholder="search: op, FX node, %value or source text", id="search"
        )
        yield Input(placeholder="filter the outline (empty: all)", id="filter")
        yield Footer()

    def on_mount(self) -> None:
        if self.view is None:
            self.run_worker(self._load, thread=True, exit_on_error=False, name="load")
        else:
            self._start()

    def _start(self) -> None:
        for box in self.query(Input):
            box.add_class("prompt")
        self.query_one("#outline").border_title = "outline"
        self.query_one("#inspector").border_title = "op"
        self._plan_small_module()
        ir = self.query_one(IRView)
        self.setup_diff()
        main = self.view.main
        if main is not None:
            ir.show(main)
            if main.ops:
                self.select(main.ops[0])
        ir.focus()

    # ---- loading in a worker ------------------------------------------------------------
    def _load(self) -> Loaded:
        return self.loader(lambda msg: self.call_from_thread(self._progress, msg))

    def _progress(self, message: str) -> None:
        for pane in self.query(LoadingPane):
            pane.step(message)

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.name == "graph" and event.state.name in ("SUCCESS", "ERROR"):
            self.graph_done(event.worker.result, event.worker.error)
        if event.worker.name != "load":
            return
        if event.state == WorkerState.SUCCESS:
            loaded: Loaded = event.worker.result
            self.view, self.diff = loaded.view, loaded.diff
            self.history = loaded.history
            await self.recompose()
            self._start()
        elif event.state == WorkerState.ERROR:
            self.load_error = event.worker.error
            self.exit(return_code=2)

    @property
    def loaded(self) -> bool:
        return self.view is not None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in _ANYWHERE:
            return True
        if action == "memory":  # m opens the memory view and, from it, goes back
            return self.view is not None
        # while loading there is nothing to act on; the other actions need the main
        # screen's panes, so under another screen (help, timeline) they do nothing
        return self.view is not None and self.screen is self.screen_stack[0]

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
        self.diff_follow(info)
        self.query_one(Outline).reveal(info)
        mark = " ★" if info.index in self.bookmarks else ""
        self.sub_title = f"{info.label}  {info.source or ''}{mark}"

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

    def on_source_pane_line_picked(self, event: SourcePane.LinePicked) -> None:
        """Select the ops of a source line; picking the same line again walks them."""
        ops = self.view.ops_at(event.file, event.line)
        if not ops:
            self.notify(f"no op comes from line {event.line}", severity="warning")
            return
        if ops != self._line_ops or self.selected not in ops:
            self._line_ops, target = ops, ops[0]
        else:
            target = ops[(ops.index(self.selected) + 1) % len(ops)]
        self.select(target)
        self.notify(f"line {event.line}: op {ops.index(target) + 1} of {len(ops)}")

    def bookmarks_changed(self) -> None:
        ir = self.query_one(IRView)
        ir.bookmarks = self.bookmarks
        ir.refresh()
        if self.selected is not None:
            info, self.selected = self.selected, None
            self.select(info)

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

    def _prompt(self, name: str) -> None:
        box = self.query_one(f"#{name}", Input)
        box.add_class("open")
        box.focus()

    def action_close_prompt(self) -> None:
        for box in self.query(".prompt.open"):
            box.remove_class("open")
            self.query_one(IRView).focus()

    def action_search(self) -> None:
        self._prompt("search")

    def action_filter(self) -> None:
        self._prompt("filter")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        box = event.input
        box.remove_class("open")
        if box.id == "filter":
            shown = self.query_one(Outline).set_filter(event.value)
            self.query_one(Outline).focus()
            self.notify(f"outline: {shown} ops" + (" match" if event.value else ""))
            return
        self.query_one(IRView).focus()
        after = self.selected.index if self.selected else -1
        found = self.view.search(event.value, after)
        if found is None:
            self.notify(f"no match for {event.value!r}", severity="warning")
        else:
            self.select(found)

    def action_toggle_locs(self) -> None:
        self.query_one(IRView).toggle_locs()

    def action_toggle_grouping(self) -> None:
        grouping = self.query_one(Outline).toggle_grouping()
        if self.selected is not None:
            self.query_one(Outline).reveal(self.selected)
        self.notify(f"outline grouped by {grouping}")

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    # ---- the pass timeline (passes.py) ---------------------------------------------------
    def action_passes(self) -> None:
        if isinstance(self.screen, PassesScreen):
            return
        info = self.selected
        key = OpKey.of_op(info.op) if info is not None else None
        label = info.label if info is not None else ""
        self.push_screen(PassesScreen(self.history, key, label), self._followed)

    def _followed(self, key: OpKey | None) -> None:
        """Back from the timeline with an op followed there: select it where the final
        IR still has it (the main function first, the same op name first)."""
        if key is None:
            return
        hits = [i for i in self.view.ops if key.matches_op(i.op)]
        main = self.view.main.name if self.view.main else None
        hits.sort(key=lambda i: (i.func != main, i.name != key.name, i.index))
        if hits:
            self.select(hits[0])
        else:
            self.notify("the followed op is not in the final IR", severity="warning")

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
