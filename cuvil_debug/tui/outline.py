"""Module outline: the functions, and each function's ops grouped by source line or by
nn.Module path (`toggle_grouping`), narrowed by a filter (`set_filter`).

The group nodes are made at once (there are few); the op leaves of a group only when
it is expanded or an op in it is revealed, and a group of more than `CHUNK` ops is
split into ranges first: a 10,000-op function opens without making 10,000 tree
nodes, and revealing an op makes at most `CHUNK` of them."""

from __future__ import annotations

from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from .data import FunctionView, ModuleGroup, ModuleView, OpInfo, matches, module_tree

__all__ = ["Outline", "GROUPINGS"]

Payload = FunctionView | OpInfo | None
GROUPINGS = ("source line", "nn.Module")
CHUNK = 200  # the most leaves one tree node gets; more are split into ranges


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
        self._home: dict[int, TreeNode[Payload]] = {}  # OpInfo.index -> its group
        self._pending: dict[int, list[OpInfo]] = {}  # id(node) -> ops not added yet
        self.shown: list[OpInfo] = []  # the ops the filter keeps, in order
        self.marks: dict[int, str] = {}  # OpInfo.index -> a prefix of its label
        self.grouping = GROUPINGS[0]
        self.filter = ""  # lower case; '' shows every op
        self.show_root = True
        self.guide_depth = 2

    def on_mount(self) -> None:
        self.rebuild()

    def rebuild(self) -> None:
        """Fill the tree again for the current grouping and filter."""
        self.clear()
        self._leaves.clear()
        self._home.clear()
        self._pending.clear()
        self.shown = []
        self.root.expand()
        for fn in self.view.functions:
            ops = [i for i in fn.ops if self._keep(i)]
            self.shown += ops
            if ops or not self.filter:
                self._add_function(fn, ops)
        self.border_subtitle = f"by {self.grouping}" + (
            f" · filter {self.filter!r}" if self.filter else ""
        )

    def _keep(self, info: OpInfo) -> bool:
        q = self.filter
        if not q:
            return True
        # an op is kept for what it is, not for what it uses (no operand names)
        found = matches(info, q.lstrip("%"), operands=False)
        return found or q in self.view.source_text(info).lower()

    def _add_function(self, fn: FunctionView, ops: list[OpInfo]) -> None:
        node = self.root.add(f"@{fn.name} ({len(ops)} ops)", data=fn)
        if fn is self.view.main or self.filter:
            node.expand()
        if self.grouping == GROUPINGS[0]:
            self._add_lines(node, FunctionView(fn.name, fn.signature, ops))
        else:
            self._add_modules(node, module_tree(ops))

    def _add_lines(self, node: TreeNode[Payload], fn: FunctionView) -> None:
        for src, ops in fn.by_source_line():
            label = str(src) if src else "(no source)"
            group = node.add(f"{label} · {len(ops)}", data=ops[0])
            self._later(group, ops)

    def _add_modules(self, node: TreeNode[Payload], group: ModuleGroup) -> None:
        for child in group.children.values():
            first = _first_op(child)
            sub = node.add(f"{child.path} · {child.count}", data=first)
            self._add_modules(sub, child)
        self._later(node, group.ops)

    # ---- what the app calls -------------------------------------------------------------
    def toggle_grouping(self) -> str:
        self.grouping = GROUPINGS[(GROUPINGS.index(self.grouping) + 1) % len(GROUPINGS)]
        self.rebuild()
        return self.grouping

    def set_filter(self, text: str) -> int:
        """Show only the ops matching `text` (op name, FX node, value, module, source
        text); '' shows all. Returns how many ops are shown."""
        self.filter = text.strip().lower()
        self.rebuild()
        return len(self.shown)

    def reveal(self, info: OpInfo) -> None:
        """Move the cursor to `info`'s leaf (expanding its group) without re-picking it."""
        node = self._ensure_leaf(info)
        if node is None:
            return
        parent = node.parent
        while parent is not None:
            parent.expand()
            parent = parent.parent
        self.call_after_refresh(self._move_to, node)

    def mark(self, info: OpInfo, prefix: str) -> None:
        """Put `prefix` before `info`'s leaf label (an overlay's marker; kept when the
        tree is rebuilt)."""
        self.marks[info.index] = prefix
        node = self._leaves.get(info.index)
        if node is not None:
            node.set_label(prefix + info.label)

    # ---- leaves made when needed -------------------------------------------------------
    def _later(self, node: TreeNode[Payload], ops: list[OpInfo]) -> None:
        """`ops` become `node`'s leaves when it is first expanded (or one is revealed)."""
        if ops:
            self._pending[id(node)] = ops
            for info in ops:
                self._home[info.index] = node

    def _fill(self, node: TreeNode[Payload]) -> None:
        ops = self._pending.pop(id(node), None)
        if ops is None:
            return
        if len(ops) <= CHUNK:
            for info in ops:
                self._add_op(node, info)
            return
        for k in range(0, len(ops), CHUNK):
            part = ops[k : k + CHUNK]
            label = f"ops {part[0].pos}..{part[-1].pos} · {len(part)}"
            self._later(node.add(label, data=part[0]), part)

    def _add_op(self, node: TreeNode[Payload], info: OpInfo) -> None:
        """`info`'s leaf; a `cuvil.fused` op's is a node whose leaves are its members
        (the ops of its body, made when it is expanded)."""
        label = self.marks.get(info.index, "") + info.label
        body = self.view.members(info)
        if body is None or not body.ops:
            self._leaves[info.index] = node.add_leaf(label, data=info)
            return
        kernel = node.add(f"{label} · {len(body.ops)} members", data=info)
        self._leaves[info.index] = kernel
        for member in body.ops:  # reached from the kernel, not from @body's own node
            self._pending.setdefault(id(kernel), []).append(member)

    def _ensure_leaf(self, info: OpInfo) -> TreeNode[Payload] | None:
        while info.index not in self._leaves:
            home = self._home.get(info.index)
            if home is None or id(home) not in self._pending:
                return None
            self._fill(home)
        return self._leaves[info.index]

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[Payload]) -> None:
        self._fill(event.node)

    def _move_to(self, node: TreeNode[Payload]) -> None:
        if node.line >= 0:
            with self.prevent(Tree.NodeHighlighted):
                self.move_cursor(node)

    def on_tree_node_selected(self, event: Tree.NodeSelected[Payload]) -> None:
        event.stop()
        if event.node.data is not None:
            self.post_message(self.Picked(event.node.data))


def _first_op(group: ModuleGroup) -> OpInfo | None:
    firsts = [group.ops[0]] if group.ops else []
    firsts += [f for f in map(_first_op, group.children.values()) if f is not None]
    return min(firsts, key=lambda i: i.index, default=None)
