"""Split a dynamo graph around the nodes Cuvil refuses: Cuvil regions and eager nodes.

Each node of the survey (survey.py) is an *input* (placeholder), *eager* (refused),
*cuvil* (lowered to an IR value), *literal* (a Python value known at compile time for
this shape: a size, a dtype; substituted where it is used) or *free* (a compile-time
tensor or object: a weight, ``torch.arange(n)``; copied into every place that uses it).

**Regions.** A cuvil node's level is the number of eager steps before it: the most, over
its inputs, of the input's level, plus one when that input is eager. The cuvil nodes of
one level form one region; the top-level graph runs region 0, then the eager nodes of
level 0 in program order, then region 1, and so on. That order is a topological one: a
cuvil node after an eager one is one level up; an eager node reads regions of its level
or lower. Each region becomes an FX graph of its own (inputs: the values it reads from
outside, outputs: its values read outside), compiled by Cuvil per input shape.

**Writes.** An in-place op (``x[i] = v``, ``x.add_(y)``) writes a storage every alias
shares. Where the writer runs eagerly, every other node of that storage (views, a
compile-time tensor) runs eagerly too, except the cuvil node that created it (its
region's output is the tensor the writer writes); the writer comes after the nodes
before it that touch the storage and before those after it. A writer Cuvil lowers must
share its region with every node of the storage, else it runs eagerly. Storage facts
come from the survey's run (``StorageProp``). A region's value read outside must be one
tensor (not a tuple), else its node runs eagerly; so does a cuvil node reading a tuple
an eager node returns (``x[0]`` of it). These rules repeat until stable.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx
from torch.utils._pytree import tree_flatten

from ..frontend.inplace import STORAGE, is_inplace
from ..ir.core import Value
from .survey import Survey

__all__ = ["Split", "split_graph", "written_nodes"]


@dataclass
class Split:
    """The top-level graph and, per region, its graph and its position."""

    top: torch.fx.GraphModule
    regions: list[torch.fx.GraphModule] = field(default_factory=list)
    eager: list[list[torch.fx.Node]] = field(default_factory=list)  # per eager step


def classify(walk: Survey) -> dict[torch.fx.Node, str]:
    values = walk.cx.module.fx_values
    kinds = {}
    for n in walk.graph.nodes:
        if n.op in ("placeholder", "output"):
            kinds[n] = "input" if n.op == "placeholder" else "output"
        elif n in walk.refused:
            kinds[n] = "eager"
        else:
            v = values.get(n.name)
            leaves = tree_flatten(v)[0]
            if any(isinstance(x, Value) for x in leaves):
                kinds[n] = "cuvil"
            elif n.op != "get_attr" and _literal(v):
                kinds[n] = "literal"
            else:
                kinds[n] = "free"
    return kinds


def _literal(v: Any) -> bool:
    if v is None or isinstance(v, (bool, int, str, torch.dtype)):
        return True
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, (tuple, list, torch.Size)):
        return all(_literal(x) for x in v)
    return False


# ---- levels, with the writes' ordering --------------------------------------------------
def _writes(node: torch.fx.Node, root) -> list[torch.fx.Node]:
    """The nodes whose tensors `node` writes in place."""
    target = node.target
    if isinstance(target, torch._ops.OpOverloadPacket | torch._ops.OpOverload):
        return _schema_writes(node)
    first = node.args[0] if node.args else None
    if not isinstance(first, torch.fx.Node):
        return []
    if target is operator.setitem or "out" in node.kwargs:
        return [first]
    try:
        return [first] if is_inplace(node, root) else []
    except AttributeError:  # a call_module target that is not there
        return []


def _schema_writes(node: torch.fx.Node) -> list[torch.fx.Node]:
    """The arguments an ATen or custom op's schema marks written (``Tensor(a!)``)."""
    target = node.target
    overloads = (
        [getattr(target, o) for o in target.overloads()]
        if isinstance(target, torch._ops.OpOverloadPacket)
        else [target]
    )
    written = []
    for op in overloads:
        for i, arg in enumerate(op._schema.arguments):
            if arg.alias_info is None or not arg.alias_info.is_write:
                continue
            value = node.args[i] if i < len(node.args) else node.kwargs.get(arg.name)
            if isinstance(value, torch.fx.Node) and value not in written:
                written.append(value)
    return written


def _storage_facts(graph: torch.fx.Graph, root):
    """(writer, storage key) pairs, the nodes of each storage, and its readers."""
    writes = []
    nodes: dict[Any, list[torch.fx.Node]] = {}
    readers: dict[Any, list[torch.fx.Node]] = {}
    for n in graph.nodes:
        key = n.meta.get(STORAGE)
        if key is not None:
            nodes.setdefault(key, []).append(n)
        for a in n.all_input_nodes:
            k = a.meta.get(STORAGE)
            if k is not None:
                readers.setdefault(k, []).append(n)
        for target in _writes(n, root):
            writes.append((n, target.meta.get(STORAGE)))
    return writes, nodes, readers


def written_nodes(gm: torch.fx.GraphModule) -> list[torch.fx.Node]:
    """Every node whose tensor the graph writes in place: through an in-place op (any
    alias), or as the running statistics of a batch/instance norm in training mode
    (from the storage facts of a run: ``StorageProp``)."""
    writes, nodes, _ = _storage_facts(gm.graph, gm)
    keys = {key for _, key in writes if key is not None}
    for n in gm.graph.nodes:
        keys |= {a.meta.get(STORAGE) for a in _norm_statistics(n)}
    return [n for key in keys for n in nodes.get(key, [])]


def _norm_statistics(node: torch.fx.Node) -> list[torch.fx.Node]:
    """The running-statistics arguments a norm in training mode updates."""
    name = getattr(node.target, "__name__", str(node.target))
    if "batch_norm" not in name and "instance_norm" not in name:
        return []
    first = (
        3 if node.target is torch.batch_norm else 1
    )  # torch.batch_norm(x, w, b, ...)
    training = node.kwargs.get("training", node.kwargs.get("use_input_stats"))
    if training is None:  # positional (index 5 in both spellings) or the default
        default = "instance_norm" in name
        training = node.args[5] if len(node.args) > 5 else default
    if training is not True:
        return []
    stats = node.args[first : first + 2]
    return [a for a in stats if isinstance(a, torch.fx.Node)]


def _levels(graph, kinds, extra) -> dict[torch.fx.Node, int]:
    level: dict[torch.fx.Node, int] = {}
    for n in graph.nodes:
        best = 0
        for p in list(n.all_input_nodes) + extra.get(n, []):
            up = kinds[p] == "eager" and kinds[n] in ("cuvil", "free", "literal")
            best = max(best, level[p] + (1 if up else 0))
        level[n] = best
    return level


def _settle(walk: Survey, kinds: dict) -> dict[torch.fx.Node, int]:
    """Apply the write rules and the one-tensor rule until nothing changes."""
    graph, root = walk.graph, walk.root
    writes, nodes, readers = _storage_facts(graph, root)
    values = walk.cx.module.fx_values
    order = {n: i for i, n in enumerate(graph.nodes)}
    while True:
        extra: dict[torch.fx.Node, list[torch.fx.Node]] = {}
        changed = False
        for w, key in writes:
            if kinds[w] == "eager":
                changed |= _eager_write(w, key, nodes, readers, kinds, order, extra)
        level = _levels(graph, kinds, extra)
        for w, key in writes:
            if kinds[w] == "cuvil" and not _write_stays(
                w, key, nodes, readers, kinds, level
            ):
                kinds[w], changed = "eager", True
        for n in _outside_reads(graph, kinds, level):
            if not isinstance(values.get(n.name), Value):
                kinds[n], changed = "eager", True
        changed |= _eager_storage_readers(graph, kinds)
        for n in graph.nodes:  # a region's inputs are tensors: x[i] of an eager tuple
            if kinds[n] == "cuvil" and any(
                kinds[a] == "eager" and not isinstance(values.get(a.name), Value)
                for a in n.all_input_nodes
            ):
                kinds[n], changed = "eager", True
        if not changed:
            return level


#: ops that read their input's storage, not only its values (its layout, its offset)
_STORAGE_READERS = ("as_strided", "as_strided_copy", "as_strided_scatter")


def _eager_storage_readers(graph: torch.fx.Graph, kinds: dict) -> bool:
    """An eager op that reads its input's storage (as_strided) must see the tensor
    eager would give it: a region's output is a fresh contiguous tensor, not a view of
    the graph's input (fuzz 7301288: as_strided past a select's one element read the
    input's storage in eager, and failed on the region's one-element tensor). Every
    node it depends on runs eagerly too, back to the graph's inputs."""
    changed = False
    for n in graph.nodes:
        name = getattr(n.target, "__name__", str(n.target)).split(".")[0]
        if kinds[n] != "eager" or name not in _STORAGE_READERS:
            continue
        todo = list(n.all_input_nodes)
        while todo:
            a = todo.pop()
            if kinds[a] in ("cuvil", "free"):
                kinds[a], changed = "eager", True
                todo.extend(a.all_input_nodes)
    return changed


def _eager_write(w, key, nodes, readers, kinds, order, extra) -> bool:
    if key is None:
        return False
    changed = False
    alias = nodes.get(key, [])
    creator = alias[0] if alias else None
    for n in alias:
        if n is not creator or kinds[n] == "free":
            if kinds[n] in ("cuvil", "free", "literal"):
                kinds[n], changed = "eager", True
    for n in set(alias) | set(readers.get(key, [])):
        if n is w:
            continue
        if order[n] > order[w]:
            extra.setdefault(n, []).append(w)
        else:
            extra.setdefault(w, []).append(n)
    return changed


def _write_stays(w, key, nodes, readers, kinds, level) -> bool:
    """A write Cuvil lowers is exact where every node of its storage is in its region."""
    if key is None:
        return True
    for n in set(nodes.get(key, [])) | set(readers.get(key, [])):
        if kinds[n] == "cuvil" and level[n] == level[w]:
            continue
        if kinds[n] in ("free", "literal") and all(
            kinds[u] == "cuvil" and level[u] == level[w] for u in n.users
        ):
            continue
        return False
    return True


def _outside_reads(graph, kinds, level) -> dict[torch.fx.Node, set]:
    """Cuvil nodes read outside their region: node -> the places that read it."""
    reads: dict[torch.fx.Node, set] = {}

    def need(node, place, seen):
        for a in node.all_input_nodes:
            if kinds[a] == "cuvil" and place != ("region", level[a]):
                reads.setdefault(a, set()).add(place)
            elif kinds[a] == "free" and a not in seen:
                seen.add(a)
                need(a, place, seen)

    for n in graph.nodes:
        if kinds[n] == "cuvil":
            need(n, ("region", level[n]), set())
        elif kinds[n] in ("eager", "output"):
            need(n, ("top",), set())
    return reads


# ---- building the graphs -----------------------------------------------------------------
class _Builder:
    """Copies nodes into one new graph: literals substituted, free nodes duplicated."""

    def __init__(self, kinds, values, inside: Callable[[torch.fx.Node], bool] | None):
        self.graph = torch.fx.Graph()
        self.env: dict[torch.fx.Node, Any] = {}
        self.kinds, self.values, self.inside = kinds, values, inside
        self.inputs: list[torch.fx.Node] = []

    def ref(self, a: torch.fx.Node) -> Any:
        if a in self.env:
            return self.env[a]
        kind = self.kinds[a]
        if kind == "literal":
            return self.values[a.name]
        if self.inside is None and kind != "free":  # the top level has every value
            raise AssertionError(
                f"cuvil split: '{a.name}' is used before it is computed"
            )
        if kind == "free" or (self.inside(a) and kind != "input"):
            self.env[a] = self.graph.node_copy(a, self.ref)
        else:  # computed elsewhere: an input of this graph
            self.env[a] = self.graph.placeholder(a.name)
            self.env[a].meta = dict(a.meta)
            self.inputs.append(a)
        return self.env[a]

    def copy(self, n: torch.fx.Node) -> Any:
        self.env[n] = self.graph.node_copy(n, self.ref)
        return self.env[n]


def _region(walk, kinds, members, outputs) -> tuple[torch.fx.GraphModule, list, list]:
    values = walk.cx.module.fx_values
    member_set = set(members)
    b = _Builder(kinds, values, lambda a: a in member_set)
    for n in members:  # placeholders are made on first use, in this order
        b.copy(n)
    b.graph.output(tuple(b.env[n] for n in outputs))
    gm = torch.fx.GraphModule(walk.root, b.graph, "CuvilRegion")
    return gm, b.inputs, outputs


def split_graph(walk: Survey, make_region: Callable[[int, torch.fx.GraphModule], Any]):
    """The split of the survey's graph (module docstring): the top-level GraphModule,
    whose regions are the callables `make_region(index, region_graph)` returns."""
    kinds = classify(walk)
    level = _settle(walk, kinds)
    graph = walk.graph
    reads = _outside_reads(graph, kinds, level)
    values = walk.cx.module.fx_values
    steps = sorted({level[n] for n in graph.nodes if kinds[n] in ("cuvil", "eager")})
    top = _Builder(kinds, values, None)
    for n in graph.nodes:
        if n.op == "placeholder":
            top.copy(n)
    split = Split(top=None)  # type: ignore[arg-type]
    for k in steps:
        members = [n for n in graph.nodes if kinds[n] == "cuvil" and level[n] == k]
        outputs = [n for n in members if n in reads]
        if outputs:  # (a region nothing reads is dead code)
            gm, inputs, outputs = _region(walk, kinds, members, outputs)
            call = make_region(len(split.regions), gm)
            split.regions.append(gm)
            result = top.graph.call_function(call, tuple(top.ref(a) for a in inputs))
            for i, n in enumerate(outputs):
                top.env[n] = top.graph.call_function(operator.getitem, (result, i))
        eager = [n for n in graph.nodes if kinds[n] == "eager" and level[n] == k]
        for n in eager:
            top.copy(n)
        if eager:
            split.eager.append(eager)
    out = next(n for n in graph.nodes if n.op == "output")
    top.copy(out)
    split.top = torch.fx.GraphModule(walk.root, top.graph, "CuvilSplit")
    return split
