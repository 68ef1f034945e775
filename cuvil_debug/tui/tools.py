"""The app's actions that work on the selection without a pane of their own: bookmarks,
copying to the clipboard, the SVG screenshot and the command palette's entries. A mixin
of CuvilTUI (app.py), which holds `view`, `selected`, `select` and `repro_args`."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from pathlib import Path

from textual.app import SystemCommand
from textual.screen import Screen

from .data import OpInfo
from .keymap import palette_keys

__all__ = ["ToolActions", "reduce_command"]


def reduce_command(repro_args: list[str] | None, info: OpInfo) -> str | None:
    """The `cuvil-debug reduce` command line that starts from `info`'s FX node, or None
    when there is no model to reduce (a .cuvilir target) or the op has no FX node."""
    if repro_args is None or not info.fx_nodes:
        return None
    return shlex.join(
        ["cuvil-debug", "reduce", *repro_args, "--node", info.fx_nodes[0]]
    )


class ToolActions:
    """Bookmarks, clipboard, screenshot, palette (see the module docstring)."""

    bookmarks: set[int]  # OpInfo.index of each bookmarked op
    repro_args: (
        list[str] | None
    )  # MODEL and its options, as the other commands take them
    screenshot_dir: Path

    # ---- bookmarks ----------------------------------------------------------------------
    def action_bookmark(self) -> None:
        info = self.selected
        if info is None:
            return
        if info.index in self.bookmarks:
            self.bookmarks.discard(info.index)
            self.notify(f"bookmark removed: {info.label}")
        else:
            self.bookmarks.add(info.index)
            self.notify(f"bookmarked: {info.label} ({len(self.bookmarks)} in all)")
        self.bookmarks_changed()

    def action_next_bookmark(self) -> None:
        if not self.bookmarks:
            self.notify("no bookmark yet: b bookmarks the selected op")
            return
        after = self.selected.index if self.selected is not None else -1
        marks = sorted(self.bookmarks)
        target = next((i for i in marks if i > after), marks[0])
        self.select(self.view.ops[target])

    def bookmarks_changed(self) -> None:  # the app redraws what shows bookmarks
        pass

    # ---- clipboard ----------------------------------------------------------------------
    def action_copy_op(self) -> None:
        info = self.selected
        if info is None:
            return
        self.copy_to_clipboard(f"{info.text} {info.loc_text}")
        self.notify(f"copied the IR of {info.label}")

    def action_copy_reduce(self) -> None:
        info = self.selected
        if info is None:
            return
        command = reduce_command(self.repro_args, info)
        if command is None:
            why = (
                "this op has no FX node"
                if self.repro_args is not None
                else "reduce needs a model: open the model, not a .cuvilir file"
            )
            self.notify(f"no reduce command: {why}", severity="warning")
            return
        self.copy_to_clipboard(command)
        self.notify(f"copied: {command}")

    # ---- screenshot ---------------------------------------------------------------------
    def action_screenshot(self) -> None:
        """Save the screen as SVG under `screenshot_dir`, a fresh name (never overwrites)."""
        stem = "cuvil-tui"
        if self.selected is not None and self.selected.fx_nodes:
            stem += f"-{self.selected.fx_nodes[0]}"
        path = _fresh(self.screenshot_dir, stem, ".svg")
        try:
            self.save_screenshot(filename=path.name, path=str(path.parent))
        except OSError as e:
            self.notify(f"cannot save the screenshot: {e}", severity="error")
            return
        self.last_screenshot = path
        self.notify(f"saved {path}")

    # ---- the graph picture --------------------------------------------------------------
    def action_export_graph(self) -> None:
        """Draw the shown function (FX graph beside it when a diff report gives one,
        coloured by it) as SVG under `screenshot_dir`, in a worker (graphviz runs)."""
        fn = self.query_one("#ir").function
        if fn is None:
            return
        path = _fresh(self.screenshot_dir, f"cuvil-graph-{fn.name}", ".svg")
        doc = self.diff.doc if self.diff is not None else None
        self.run_worker(
            lambda: _draw(self.view.module, fn.name, doc, path),
            thread=True,
            name="graph",
            exit_on_error=False,
        )

    def graph_done(self, path: Path | None, error: BaseException | None) -> None:
        if error is not None:
            self.notify(f"cannot draw the graph: {error}", severity="error")
            return
        self.last_graph = path
        self.notify(f"saved {path}")

    # ---- command palette ----------------------------------------------------------------
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)  # type: ignore[misc]
        for key in palette_keys():
            action = getattr(self, f"action_{key.action}", None)
            if action is not None:
                title = key.description[0].upper() + key.description[1:]
                yield SystemCommand(title, f"key {key.shown}", action)


def _draw(module, function: str, doc: dict | None, path: Path) -> Path:
    from ..diff.render.json import report_from_json
    from ..graph import build_graph, render

    report = report_from_json(doc) if doc is not None else None
    svg = render(build_graph(module, report=report, function=function), "svg")
    from cuvil.userpaths import write_file

    return write_file(path, svg)  # atomic, never over a file


def _fresh(folder: Path, stem: str, suffix: str) -> Path:
    path = folder / f"{stem}{suffix}"
    k = 1
    while path.exists():
        path = folder / f"{stem}-{k}{suffix}"
        k += 1
    return path
