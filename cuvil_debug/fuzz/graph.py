"""A random graph as plain data (JSON round-trip), and its eager meaning.

An argument is a Python literal, a list, or a tagged dict: ``{"x": i}`` (input i),
``{"v": j}`` (the result of node j; ``outputs`` lists node numbers), ``{"p": name}`` (a
parameter or buffer of the model), ``{"slice": [start, stop, step]}``, ``{"ellipsis":
1}``, ``{"tuple": [...]}``, ``{"dtype": "float16"}``. A node's ``call`` says how the
model spells it (catalog.Form.call plus the ATen overload); modules live in ``state``
under their attribute name (``m3``) with their constructor arguments in ``ctor``.
"""

from __future__ import annotations

import copy
import operator
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn as nn

from .catalog import resolve
from .values import DTYPES, TensorSpec, make

__all__ = [
    "Node",
    "Graph",
    "Env",
    "decode",
    "evaluate",
    "build_state",
    "promote",
    "call_node",
]

#: casts that the float64 reference turns into ``.double()``
_FLOAT_CASTS = {".float", ".half", ".bfloat16", ".double"}


@dataclass
class Node:
    call: str
    kind: str  # function | method | operator | aten | module | getitem | getattr
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    family: str = ""
    ctor: dict[str, Any] | None = None  # modules: constructor keyword arguments
    module: str | None = None  # modules: the attribute name (m3)


@dataclass
class Graph:
    seed: int
    inputs: list[TensorSpec]
    state: dict[str, TensorSpec]  # p0, b1 and every module's entries (m3.weight ...)
    nodes: list[Node]
    outputs: list[int]

    def to_json(self) -> dict:
        return {
            "seed": self.seed,
            "inputs": [s.to_json() for s in self.inputs],
            "state": {k: s.to_json() for k, s in self.state.items()},
            "nodes": [copy.deepcopy(n.__dict__) for n in self.nodes],
            "outputs": list(self.outputs),
        }

    @classmethod
    def from_json(cls, d: dict) -> Graph:
        return cls(
            d["seed"],
            [TensorSpec.from_json(s) for s in d["inputs"]],
            {k: TensorSpec.from_json(s) for k, s in d["state"].items()},
            [Node(**n) for n in d["nodes"]],
            list(d["outputs"]),
        )

    def families(self) -> list[str]:
        return sorted({n.family for n in self.nodes if n.family})


@dataclass
class Env:
    """The values a node's arguments may name."""

    inputs: list[Any]
    nodes: list[Any]
    state: dict[str, Any]
    dt: torch.dtype = torch.float32


def decode(arg: Any, env: Env) -> Any:
    """An encoded argument with its values looked up (``{"v": 3}`` -> node 3's value)."""
    if isinstance(arg, list):
        return [decode(a, env) for a in arg]
    if not isinstance(arg, dict):
        return arg
    if "x" in arg:
        return env.inputs[arg["x"]]
    if "v" in arg:
        return env.nodes[arg["v"]]
    if "p" in arg:
        return env.state[arg["p"]]
    if "slice" in arg:
        return slice(*arg["slice"])
    if "ellipsis" in arg:
        return Ellipsis
    if "tuple" in arg:
        return tuple(decode(a, env) for a in arg["tuple"])
    if "dtype" in arg:
        dtype = DTYPES[arg["dtype"]]
        return env.dt if env.dt == torch.float64 and dtype.is_floating_point else dtype
    raise ValueError(f"unknown argument encoding {arg!r}")


def call_node(node: Node, args: list, kwargs: dict, env: Env, modules: dict) -> Any:
    if node.kind == "module":
        return modules[node.module](*args, **kwargs)
    if node.kind == "method" and node.call in _FLOAT_CASTS and env.dt == torch.float64:
        return args[0].double()
    if env.dt == torch.float64 and "nan_to_num" in node.call:
        kwargs = _float32_fill(args, kwargs)
    if node.kind == "method":
        return getattr(args[0], node.call[1:])(*args[1:], **kwargs)
    if node.kind == "getitem":
        return operator.getitem(*args)
    if node.kind == "getattr":
        return getattr(*args)
    return resolve(node.call)(*args, **kwargs)


def _float32_fill(args: list, kwargs: dict) -> dict:
    """nan_to_num's default fill of an infinity is the dtype's largest value; in the
    float64 reference that is 1.8e308, where the program (float32 in the main) has
    3.4e38: the reference's std of two such values overflowed where the program's
    exact answer is 0 (fuzz 7305622). The reference fills float32's limits."""
    big = torch.finfo(torch.float32).max
    kwargs = dict(kwargs)
    for i, (name, value) in enumerate((("posinf", big), ("neginf", -big)), start=2):
        given = args[i] if len(args) > i else kwargs.get(name)
        if given is None and len(args) <= i:
            kwargs[name] = value
        elif given is None:
            args[i] = value
    return kwargs


def make_module(node: Node) -> nn.Module:
    cls = resolve(node.call)
    return cls(**node.ctor).eval()


def promote(t: Any, dt: torch.dtype) -> Any:
    """`t` in float64 when `dt` is (the reference promotes every float), else as is."""
    if dt == torch.float64 and isinstance(t, torch.Tensor) and t.is_floating_point():
        return t.double()
    return t


def build_state(graph: Graph, dt=torch.float32, data=None) -> tuple[dict, dict]:
    """({state name: tensor}, {module attribute: module}) with the specs' values (or
    `data`'s); with `dt` float64 every float tensor is promoted (the reference)."""
    tensors = {}
    for name, spec in graph.state.items():
        tensors[name] = promote(data[name] if data else make(spec), dt)
    modules = {}
    for node in graph.nodes:
        if node.kind == "module":
            m = make_module(node)
            entries = {k: tensors[f"{node.module}.{k}"] for k in m.state_dict()}
            m.load_state_dict(entries, strict=True, assign=True)
            modules[node.module] = m
    return tensors, modules


def evaluate(
    graph: Graph,
    inputs: list[torch.Tensor],
    dt=torch.float32,
    state=None,
    wiggle=None,
    round_to=None,
) -> list[Any]:
    """Every node's value computed eagerly (inputs are used as given: clone them
    first if a node writes in place). With `dt` float64 every float input, parameter
    and float dtype argument is float64: the reference of the judge. `wiggle`
    (tensor -> tensor), where given, replaces each node's new tensor results (not
    views of or writes into a value it read): the judge's perturbed references.
    `round_to` (one dtype or None per node) rounds a node's float result to that
    dtype and back: the judge's reference rounded where the program is 16-bit."""
    tensors, modules = state if state is not None else build_state(graph, dt)
    env = Env([promote(x, dt) for x in inputs], [], tensors, dt)
    for k, node in enumerate(graph.nodes):
        args = decode(node.args, env)
        kwargs = {k: decode(v, env) for k, v in node.kwargs.items()}
        out = call_node(node, args, kwargs, env, modules)
        if round_to is not None and round_to[k] is not None:
            out = _wiggled(out, args, lambda t, d=round_to[k]: _rounded(t, d))
        env.nodes.append(out if wiggle is None else _wiggled(out, args, wiggle))
    return env.nodes


def _rounded(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return t.to(dtype).to(t.dtype) if t.is_floating_point() else t


def _wiggled(out: Any, args: Any, wiggle) -> Any:
    """`wiggle(out)` for a tensor result; a view of or a write into an argument is
    wiggled in place, so that every name of it reads the same values (tuples of
    results are left as they are)."""
    if not isinstance(out, torch.Tensor):
        return out
    ptr = out.untyped_storage().data_ptr()
    if not any(ptr == p for p in _storages(args)):
        return wiggle(out)
    try:
        out.copy_(wiggle(out))
    except RuntimeError:  # an expanded view: several elements share one location
        pass
    return out


def _storages(arg: Any):
    if isinstance(arg, torch.Tensor):
        yield arg.untyped_storage().data_ptr()
    elif isinstance(arg, list | tuple):
        for a in arg:
            yield from _storages(a)
