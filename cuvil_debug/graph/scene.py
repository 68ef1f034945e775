"""What a side of the picture holds before it becomes DOT: items (drawn nodes), the
groups they sit in (a fused kernel, a decomposed FX node), the nn.Module each belongs
to, and the edges; `collapse` folds deep modules into one item; `emit` nests clusters
per module path (``layer1`` > ``layer1.0``) and writes them into a graphviz graph."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import graphviz

from ..diff.render.cells import STYLE, VERDICTS
from ..diff.render.dot import dot_text
from ..diff.status import Verdict

__all__ = ["Item", "Group", "Side", "collapse", "emit", "parent", "common_module"]


@dataclass
class Item:
    """One drawn node: its DOT id and attributes, the nn.Module path it is drawn in,
    the group (cluster) it belongs to, its verdict and the names it stands for."""

    id: str
    attrs: dict[str, str]
    module: str | None = None
    group: str | None = None
    verdict: Verdict | None = None
    names: tuple[str, ...] = ()
    leaf: bool = False  # a param, constant or argument: its edges may bend


@dataclass
class Group:
    """A cluster inside a module's cluster: a fused kernel's members, the ops of one
    decomposed FX node."""

    id: str
    attrs: dict[str, str]
    module: str | None = None


@dataclass
class Side:
    """One side of the picture (``fx`` or ``ir``): a top cluster named `name`."""

    name: str
    label: str
    # a box per nn.Module (the FX side); the IR side has none: dot lays the boxes of
    # consecutive blocks out as a staircase there, and its ops name their FX nodes
    boxes: bool = True
    items: list[Item] = field(default_factory=list)
    groups: dict[str, Group] = field(default_factory=dict)
    edges: list[tuple[str, str]] = field(default_factory=list)

    def add(self, item: Item) -> Item:
        self.items.append(item)
        return item


def parent(module: str | None) -> str | None:
    head, _, _ = (module or "").rpartition(".")
    return head or None


def common_module(modules: Iterable[str | None]) -> str | None:
    """The deepest nn.Module path every one of `modules` is inside (None: the root)."""
    paths = [m.split(".") if m else [] for m in modules]
    if not paths:
        return None
    common = paths[0]
    for p in paths[1:]:
        n = 0
        while n < min(len(common), len(p)) and common[n] == p[n]:
            n += 1
        common = common[:n]
    return ".".join(common) or None


def _depth(module: str | None) -> int:
    return len(module.split(".")) if module else 0


def strongest(verdicts: Iterable[Verdict | None]) -> Verdict | None:
    found = {v for v in verdicts if v is not None}
    return next((v for v in VERDICTS if v in found), None)


def collapse(side: Side, depth: int, noun: str) -> dict[str, str]:
    """Draw each nn.Module at `depth` (``layer1.0`` is at 2) as one item standing for
    everything inside it; returns old item id -> new id, for the edges."""
    merged: dict[str, list[Item]] = {}
    kept: list[Item] = []
    for item in side.items:
        module = _module_of(side, item)
        if _depth(module) < depth:
            kept.append(item)
        else:
            merged.setdefault(".".join(module.split(".")[:depth]), []).append(item)
    renamed: dict[str, str] = {}
    for key, members in merged.items():
        if len(members) == 1:  # a module of one node is that node
            kept.append(members[0])
            continue
        new = _collapsed(f"{side.name}_m_{len(renamed)}", key, members, noun)
        renamed.update((i.id, new.id) for i in members)
        kept.append(new)
    side.items = kept
    used = {i.group for i in kept}
    side.groups = {k: g for k, g in side.groups.items() if k in used}
    side.edges = remap_edges(side.edges, renamed)
    return renamed


def _collapsed(id: str, module: str, members: list[Item], noun: str) -> Item:
    verdict = strongest(i.verdict for i in members)
    _, fill, border = STYLE[verdict or Verdict.NONE]
    names = tuple(n for i in members for n in i.names)
    shown = ", ".join(names[:6]) + (", …" if len(names) > 6 else "")
    attrs = {
        "label": dot_text(module, f"{len(members)} {noun} (collapsed)"),
        "shape": "box3d",
        "style": "filled",
        "fillcolor": fill if verdict else "#ffffff",
        "color": border,
        "tooltip": dot_text(f"{module}: {shown}"),
    }
    return Item(id, attrs, parent(module), None, verdict, names)


def remap_edges(
    edges: Iterable[tuple[str, str]], renamed: dict[str, str]
) -> list[tuple[str, str]]:
    """Edges with renamed ends, without self loops, each once, in order."""
    out = ((renamed.get(a, a), renamed.get(b, b)) for a, b in edges)
    return list(dict.fromkeys(e for e in out if e[0] != e[1]))


def _module_of(side: Side, item: Item) -> str | None:
    return side.groups[item.group].module if item.group else item.module


def emit(g: graphviz.Digraph, side: Side, **cluster: str) -> None:
    """Write `side` into `g` as one cluster, nested clusters per nn.Module path (when
    `side.boxes`)."""
    children: dict[str | None, set[str]] = {}
    for module in {_module_of(side, i) for i in side.items}:
        while module:
            children.setdefault(parent(module), set()).add(module)
            module = parent(module)
    with g.subgraph(name=f"cluster_{side.name}") as top:
        top.attr(label=dot_text(side.label), **cluster)
        _emit_module(top, side, None, children)
    leaves = {i.id for i in side.items if i.leaf}
    for a, b in side.edges:
        # the data path stays straight; a weight's edge bends to reach it
        g.edge(a, b, weight="1" if a in leaves else "8")


def _emit_module(g, side: Side, module: str | None, children) -> None:
    for item in side.items:
        if item.group is None and item.module == module:
            g.node(item.id, **item.attrs)
    for key, group in side.groups.items():
        if group.module == module:
            with g.subgraph(name=f"cluster_{side.name}_{group.id}") as c:
                c.attr(**group.attrs)
                for item in side.items:
                    if item.group == key:
                        c.node(item.id, **item.attrs)
    for child in sorted(children.get(module, ())):
        if not _boxed(side, child, children):
            _emit_module(g, side, child, children)
            continue
        with g.subgraph(name=f"cluster_{side.name}:{child}") as c:
            c.attr(
                label=dot_text(child),
                style="rounded,dashed",
                color="#9e9e9e",
                fontsize="11",
            )
            _emit_module(c, side, child, children)


def _boxed(side: Side, module: str, children) -> bool:
    """A module gets a box when it holds modules, or kernels and more. Not a leaf
    module of nodes (conv1; relu called twice): a box round the two calls of one relu
    would span its block and push the rest of the picture aside."""
    if not side.boxes:
        return False
    if children.get(module):
        return True
    groups = sum(1 for g in side.groups.values() if g.module == module)
    items = sum(1 for i in side.items if i.group is None and i.module == module)
    return groups > 0 and groups + items > 1
