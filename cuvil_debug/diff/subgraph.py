"""FX subgraph surgery for ``reduce``: a traced graph, its eager values, and the
candidate subgraphs cut out of it.

A *candidate* is a set of kept compute nodes. It becomes a GraphModule in which every
input of a kept node that is not kept is a placeholder fed with its saved eager value
(non-tensor values such as sizes are inlined; producers of values that cannot be cut,
tuples of tensors, are pulled in). A tensor that an in-place op mutates has several
saved *versions* (`capture.EagerRecorder`); each reader is fed the version it saw.
"""

from __future__ import annotations

import math
import re
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch.fx
from torch.utils._pytree import tree_flatten

from cuvil.errors import CuvilError
from cuvil.frontend.fx import trace

from .capture import record_eager

__all__ = ["CALLS", "Candidate", "Graph", "clone"]

CALLS = ("call_function", "call_method", "call_module")  # compute nodes
_LITERALS = (int, float, bool, str, type(None), torch.dtype, torch.device)

Key = tuple[torch.fx.Node, int]  # a node's value: (node, version)


@dataclass
class Candidate:
    """A kept set of nodes as a runnable GraphModule with its saved inputs."""

    gm: torch.fx.GraphModule
    inputs: tuple[torch.Tensor, ...]
    names: list[str]  # the FX node behind each output


class Graph:
    """A traced model with every node's eager value (and in-place versions)."""

    def __init__(self, gm: torch.fx.GraphModule, values: dict, versions: dict) -> None:
        self.gm, self.values, self.versions = gm, values, versions
        self.nodes = list(gm.graph.nodes)
        self.index = {n: i for i, n in enumerate(self.nodes)}
        self.compute = [n for n in self.nodes if n.op in CALLS]

    @staticmethod
    def trace(model: torch.nn.Module, inputs: Sequence[torch.Tensor]) -> Graph:
        """Cuvil's own trace of `model`, run once eagerly on `inputs`."""
        try:
            gm = trace(model)
        except Exception as e:
            raise CuvilError(
                f"torch.fx could not trace {type(model).__name__}: "
                f"{type(e).__name__}: {e}"
            ) from e
        rec = record_eager(
            gm,
            clone(inputs),
            versions=True,
            failure="the traced model failed to run on the example inputs",
            hint=None,
        )
        return Graph(gm, rec.values, rec.versions)

    # ---- nodes ---------------------------------------------------------------------
    def node(self, name: str) -> torch.fx.Node:
        """The compute node called `name` (a CuvilError naming similar ones if none)."""
        for n in self.compute:
            if n.name == name:
                return n
        near = [n.name for n in self.compute if name in n.name or n.name in name]
        hint = f"nodes with similar names: {', '.join(near[:8])}" if near else None
        raise CuvilError(
            f"'{name}' is not a compute node of the traced graph "
            f"({len(self.compute)} nodes)",
            hint=hint or "`cuvil-debug ir MODEL` prints the FX node names",
        )

    def named_in(self, text: str) -> torch.fx.Node | None:
        """The compute node an error message names (``FX node 'NAME'``), if any."""
        m = re.search(r"FX node '([^']+)'", text)
        if m:
            for n in self.compute:
                if n.name == m.group(1):
                    return n
        return None

    def ancestors(self, node: torch.fx.Node) -> set[torch.fx.Node]:
        seen: set[torch.fx.Node] = set()
        todo = list(node.all_input_nodes)
        while todo:
            a = todo.pop()
            if a in seen or a.op not in CALLS:
                continue
            seen.add(a)
            todo.extend(a.all_input_nodes)
        return seen

    def nearest_producers(self, node: torch.fx.Node) -> list[torch.fx.Node]:
        """Compute-node ancestors, breadth first (nearest first; later ones first)."""
        out, seen = [], {node}
        queue = deque([node])
        while queue:
            n = queue.popleft()
            for a in sorted(
                n.all_input_nodes, key=self.index.__getitem__, reverse=True
            ):
                if a not in seen and a.op in CALLS:
                    seen.add(a)
                    out.append(a)
                    queue.append(a)
        return out

    # ---- candidates ------------------------------------------------------------------
    def close(self, kept: frozenset) -> frozenset:
        """Add the producers of inputs that cannot be cut (tuples of tensors...)."""
        kept = set(kept)
        todo = list(kept)
        while todo:
            n = todo.pop()
            for a in n.all_input_nodes:
                if a in kept or a.op in ("get_attr", "placeholder"):
                    continue
                if not all(_cuttable(v) for _, v in self._versions_of(a)):
                    kept.add(a)
                    todo.append(a)
        return frozenset(kept)

    def build(
        self, kept: frozenset, target: torch.fx.Node | None = None
    ) -> Candidate | None:
        """The candidate `kept` (closed); None when it has no tensor output. Its
        outputs are the kept nodes no other kept node reads, or only `target`."""
        order = [n for n in self.nodes if n in kept]
        sinks = self._sinks(order, kept, target)
        if not sinks:
            return None
        graph = torch.fx.Graph()
        feeds, inputs = self._cut(graph, order, kept)
        env: dict[torch.fx.Node, Any] = {}
        for n in order:

            def arg(a: torch.fx.Node, n=n) -> Any:
                if a in env:
                    return env[a]
                if a.op == "get_attr":
                    env[a] = graph.node_copy(a)
                    return env[a]
                return feeds[self._version(a, n)]

            env[n] = graph.node_copy(n, arg)
        graph.output(tuple(env[s] for s in sinks))
        graph.lint()
        gm = torch.fx.GraphModule(self.gm, graph, "Reduced")
        return Candidate(gm, inputs, [s.name for s in sinks])

    def _sinks(self, order, kept: frozenset, target) -> list[torch.fx.Node]:
        if target is not None and target in kept:
            sinks = [target]
        else:
            used = {a for n in order for a in n.all_input_nodes if a in kept}
            sinks = [n for n in order if n not in used]
        return [n for n in sinks if _is_output_value(self.values.get(n))]

    def _cut(
        self, graph: torch.fx.Graph, order, kept: frozenset
    ) -> tuple[dict[Key, Any], tuple[torch.Tensor, ...]]:
        """What each cut input becomes: a placeholder fed with its saved tensor (in
        the order the model computes them), or the inlined value."""
        keys: dict[Key, None] = {}
        for n in order:
            for a in n.all_input_nodes:
                if a not in kept and a.op != "get_attr":
                    keys.setdefault(self._version(a, n), None)
        feeds: dict[Key, Any] = {}
        inputs: list[torch.Tensor] = []
        for key in sorted(keys, key=lambda k: (self.index[k[0]], k[1])):
            node, version = key
            value = self._versions_of(node)[version][1]
            if isinstance(value, torch.Tensor):
                name = node.name if version == 0 else f"{node.name}_v{version}"
                ph = graph.placeholder(name)
                ph.meta["reduce_cut"] = node.name
                ph.meta["stack_trace"] = node.meta.get("stack_trace")
                feeds[key] = ph
                inputs.append(value)
            else:
                feeds[key] = _literal(value)
        return feeds, tuple(inputs)

    # ---- in-place versions -------------------------------------------------------------
    def _versions_of(self, node: torch.fx.Node) -> list[tuple[int, Any]]:
        return self.versions.get(node) or [(self.index[node], self.values.get(node))]

    def _version(self, a: torch.fx.Node, reader: torch.fx.Node) -> Key:
        """Which saved value of `a` `reader` sees: the last one taken before it runs
        (a value changes when an in-place op mutates it)."""
        at = self.index[reader]
        best = 0
        for i, (pos, _) in enumerate(self._versions_of(a)):
            if pos < at:
                best = i
        return (a, best)


def clone(inputs: Iterable[torch.Tensor]) -> tuple:
    """Fresh copies of the tensors of `inputs` (a compiled or eager run may write)."""
    return tuple(
        x.detach().clone() if isinstance(x, torch.Tensor) else x for x in inputs
    )


def _is_output_value(value: Any) -> bool:
    leaves = tree_flatten(value)[0]
    return bool(leaves) and all(isinstance(x, torch.Tensor) for x in leaves)


def _is_literal(value: Any) -> bool:
    if isinstance(value, torch.Size | tuple | list):
        return all(_is_literal(v) for v in value)
    if isinstance(value, slice):
        return all(_is_literal(v) for v in (value.start, value.stop, value.step))
    if isinstance(value, float):
        return math.isfinite(value)
    return value is Ellipsis or isinstance(value, _LITERALS)


def _cuttable(value: Any) -> bool:
    return isinstance(value, torch.Tensor) or _is_literal(value)


def _literal(value: Any) -> Any:
    if isinstance(value, torch.Size):
        return tuple(value)
    if isinstance(value, tuple | list):
        return type(value)(_literal(v) for v in value)
    return value
