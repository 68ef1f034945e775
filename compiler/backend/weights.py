"""The module's own parameters and buffers as constants (torch.compile's "freezing").

Dynamo hands a module's parameters and buffers to the backend as graph inputs
(placeholders whose ``grapharg`` source is the module's ``_parameters``/``_buffers``,
or ``nn.Parameter`` example inputs). Compiled as inputs they are opaque at compile time:
no folding, no pre-packing, and every call passes and checks each one. ``freeze`` turns
those placeholders into ``get_attr`` nodes of the very tensors, so the graph is compiled
the way ``cuvil.compile`` compiles a module: the frontend reads them as params.

Constants may go stale; ``WeightGuard`` makes sure they never do silently. Each call
checks, for each frozen tensor, that the graph gets the same tensor object, at the same
address, with the same version counter (``tensor._version``, bumped by every in-place
write: ``p.mul_(2)`` under ``no_grad``, ``load_state_dict``, an optimizer step); the
storages are held, so an address cannot be reused. A change rebuilds (runner.py).
Writes that bypass the version counter (``p.data.mul_(2)``, ``p.data.copy_(...)``) are
not seen: docs/BACKEND.md says so.

Not frozen: a tensor the graph writes (found from the survey's storage facts), one that
needs gradients (autograd.py), one with symbolic sizes, and anything not the module's own.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from typing import Any

import torch
import torch.fx
from torch._subclasses.fake_tensor import is_fake

__all__ = ["weight_inputs", "freeze", "WeightGuard"]

_KEY = re.compile(r"\.(?:_modules|_parameters|_buffers)\['([^']*)'\]")


def _is_module_state(source: Any) -> bool:
    try:
        from torch._dynamo.source import is_from_unspecialized_param_buffer_source
    except ImportError:  # an older or newer torch: Parameter inputs only
        return False
    try:
        return bool(is_from_unspecialized_param_buffer_source(source))
    except TypeError:  # an unhashable source
        return False


def weight_inputs(gm: torch.fx.GraphModule, example_inputs: Sequence[Any]) -> list[int]:
    """Indices of the inputs that are the module's own parameters and buffers."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    found = []
    for i, (node, x) in enumerate(zip(placeholders, example_inputs)):
        if not isinstance(x, torch.Tensor) or is_fake(x):
            continue
        example = node.meta.get("example_value")
        if isinstance(example, torch.Tensor) and any(
            not isinstance(d, int) for d in example.shape
        ):
            continue
        source = getattr(node.meta.get("grapharg"), "source", None)
        if isinstance(x, torch.nn.Parameter) or (
            source is not None and _is_module_state(source)
        ):
            found.append(i)
    return found


def _name(node: torch.fx.Node, taken: set[str]) -> str:
    """The tensor's path in the module (``layer1.0.conv1.weight``), as cuvil.compile
    names its params; the placeholder's name where the source does not say."""
    source = getattr(node.meta.get("grapharg"), "source", None)
    keys = _KEY.findall(source.name()) if source is not None else []
    name = ".".join(keys) if keys else node.name
    base, n = name, 1
    while name in taken or any(t.startswith(name + ".") for t in taken):
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name


def freeze(
    gm: torch.fx.GraphModule, indices: Sequence[int], tensors: Sequence[torch.Tensor]
) -> tuple[torch.fx.GraphModule, list[str]]:
    """A copy of `gm` whose placeholders at `indices` read `tensors` (``get_attr``),
    and the names they have there."""
    graph = torch.fx.Graph()
    remap: dict[torch.fx.Node, torch.fx.Node] = {}
    out = graph.graph_copy(gm.graph, remap)
    graph.output(out)
    attrs: dict[str, Any] = {}
    for n in gm.graph.nodes:  # what the graph itself reads
        if n.op in ("get_attr", "call_module"):
            attrs[str(n.target)] = _fetch(gm, str(n.target))
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    first = next(n for n in graph.nodes if n.op != "placeholder")
    taken, names = set(attrs), []
    for i, t in zip(indices, tensors):
        node = placeholders[i]
        name = _name(node, taken)
        names.append(name)
        attrs[name] = t
        with graph.inserting_before(first):
            attr = graph.get_attr(name)
        attr.meta = dict(node.meta)
        node.replace_all_uses_with(attr)
        graph.erase_node(node)
    graph.lint()
    return torch.fx.GraphModule(attrs, graph, gm.__class__.__name__), names


def _fetch(root: torch.nn.Module, target: str) -> Any:
    obj: Any = root
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


class WeightGuard:
    """Whether the frozen tensors are still what was compiled (module docstring)."""

    def __init__(
        self, indices: Sequence[int], args: Sequence[Any], names: Sequence[str]
    ) -> None:
        self.indices, self.names = list(indices), list(names)
        self.tensors = [args[i] for i in self.indices]
        self._storages = [t.untyped_storage() for t in self.tensors]  # kept alive
        self._versions = [t._version for t in self.tensors]
        self._ptrs = [t.data_ptr() for t in self.tensors]
        self._pick = operator.itemgetter(*self.indices) if self.indices else None

    def holds(self, args: Sequence[Any]) -> bool:
        if self._pick is None:
            return True
        got = self._pick(args)
        got = got if isinstance(got, tuple) else (got,)
        return (
            all(map(operator.is_, got, self.tensors))
            and [t._version for t in got] == self._versions
            and [t.data_ptr() for t in got] == self._ptrs
        )

    def what_changed(self, args: Sequence[Any]) -> str:
        """Which tensor changed and how (for the report and the warning)."""
        facts = zip(self.indices, self.names, self.tensors, self._versions, self._ptrs)
        for i, name, t, v, p in facts:
            a = args[i]
            if a is not t:
                return f"'{name}' is another tensor"
            if a._version != v:
                return f"'{name}' was written in place"
            if a.data_ptr() != p:
                return f"'{name}' has new data"
        return "nothing"
