"""Module outline: the functions, and each function's ops grouped by source line."""

from __future__ import annotations

from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from .data import FunctionView, ModuleView, OpInfo

__all__ = ["Outline"]

Payload = FunctionView | OpInfo | None


class Outline(Tree[Payload]):
    """A Tree (one line per node, drawn lazily: no widget per op). Selecting a function
    shows it; selecting an op selects it (the app hears `Picked`)."""

    class Picked(Message):
        def __init__(self, target: FunctionView | OpInfo) -> None:
            super().__init__()
            self.target = target

    def __init__(self, view: ModuleView, **kw) -> None:
        super().__init__(f"module @{view.module.name}", **kw)
        self.view = view
        self._leaves: dict[int, TreeNode[Payload]] = {}  # OpInfo.index -> its leaf
        self.show_root = True
        self.guide_depth = 2

    def on_mount(self) -> None:
        self.root.expand()
        for fn in self.view.functions:
            self._add_function(fn)

    def _add_function(self, fn: FunctionView) -> None:
        node = self.root.add(f"@{fn.name} ({len(fn.ops)} ops)", data=fn)
        if fn is self.view.main:
            node.expand()
        for src, ops in fn.by_source_line():
            label = str(src) if src else "(no source)"
            group = node.add(f"{label} · {len(ops)}", data=ops[0])
            for info in ops:
                self._leaves[info.index] = group.add_leaf(info.label, data=info)

    def reveal(self, info: OpInfo) -> None:
        """Move the cursor to `info`'s leaf (expanding its group) without re-picking it."""
        node = self._leaves.get(info.index)
        if node is None:
            return
        parent = node.parent
        while parent is not None:
            parent.expand()
            parent = parent.parent
        self.call_after_refresh(self._move_to, node)

    def mark(self, info: OpInfo, prefix: str) -> None:
        """Put `prefix` before `info`'s leaf label (an overlay's marker)."""
        node = self._leaves.get(info.index)
        if node is not None:
            node.set_label(prefix + info.label)

    def _move_to(self, node: TreeNode[Payload]) -> None:
        if node.line >= 0:
            with self.prevent(Tree.NodeHighlighted):
                self.move_cursor(node)

    def on_tree_node_selected(self, event: Tree.NodeSelected[Payload]) -> None:
        event.stop()
        if event.node.data is not None:
            self.post_message(self.Picked(event.node.data))
