"""The float64 twin of a captured graph: the truth every value is judged against.

The twin is a double copy of the traced GraphModule (parameters, buffers and tensor
attributes in float64) run on double copies of the inputs, with float64 as torch's
default dtype (so tensors the model creates in forward are double too). Two truths per
FX node (judge.py keeps each as eager's error against it):

* *propagated*: the node in the twin run from the float64 inputs, the truth of the
  value the user gets; eager's error against it is every rounding upstream;
* *isolated*: the node computed in float64 from eager's (float32) values of its inputs,
  the truth of what the node adds by itself; eager's error against it is the node's own
  rounding. When a stage computes several nodes from eager inputs at once (a fused
  kernel, a convolution folded into its batch norm), the isolated truth is that *span*
  of nodes evaluated in float64 from eager's values of the span's inputs
  (`Twin.isolated`, computed on demand and kept).

The judge's floor is measured in ulps of the *span's* scale: the largest RMS (max abs)
of the values the span computes. A stage that computes a convolution and its batch
norm in one op (folded weights) rounds at the convolution's scale, and where the batch
norm's output nearly cancels to zero eager (which rounds the centred value) can be
luckily exact; a floor at the output's own scale would call that a bug.

One pass of the twin computes both for every node (two float64 evaluations per node).
A node whose eager value is not float32/float16/bfloat16, or whose twin value is not
float64 (the model casts to float32 itself), has no truth: it is judged by the tolerance
rule. `float64_outputs` is the same for a whole model's outputs (bisect, reduce).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import math
from collections.abc import Iterator, Sequence
from typing import Any

import torch
import torch.fx
from torch.fx.node import map_arg
from torch.utils._pytree import tree_flatten, tree_map

from .judge import Truth

__all__ = [
    "Twin",
    "double_copy",
    "float64_outputs",
    "as_double",
    "float64_default",
    "twin_note",
]

CALLS = ("call_function", "call_method", "call_module")
Span = frozenset[str]


def as_double(value: Any) -> Any:
    """`value` with float tensors as float64 copies (other tensors copied)."""

    def up(x):
        if not isinstance(x, torch.Tensor):
            return x
        x = x.detach()
        return x.to(torch.float64) if x.is_floating_point() else x.clone()

    return tree_map(up, value)


def double_copy(module: torch.nn.Module) -> torch.nn.Module:
    """A copy of `module` whose float parameters, buffers and plain tensor attributes
    are float64 (the module itself is left alone)."""
    twin = copy.deepcopy(module)
    twin.to(torch.float64)
    for sub in twin.modules():
        for name, value in list(vars(sub).items()):
            if isinstance(value, torch.Tensor) and value.is_floating_point():
                setattr(sub, name, value.detach().to(torch.float64))
    return twin.eval()


_NARROW = (torch.float32, torch.float16, torch.bfloat16)


def _widened(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """`gm` (a copy) with every float dtype its nodes name made float64: the casts,
    factory calls and dtype checks a graph spells out (torch.export writes
    ``_assert_tensor_metadata(x, ..., torch.float32)``, ``_to_copy(x, dtype=...)``)."""

    def widen(a):
        return torch.float64 if isinstance(a, torch.dtype) and a in _NARROW else a

    for n in gm.graph.nodes:
        n.args = torch.fx.node.map_aggregate(n.args, widen)
        n.kwargs = torch.fx.node.map_aggregate(n.kwargs, widen)
    return gm


@contextlib.contextmanager
def float64_default() -> Iterator[None]:
    """torch's default dtype is float64 inside (tensors created in forward)."""
    saved = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(saved)


class Twin(torch.fx.Interpreter):
    """The float64 twin of `gm`, run on `args` (its placeholders' values); `eager`
    holds every node's eager value by name and `versions` the later values of tensors
    that in-place ops mutate (capture.EagerRecorder's)."""

    def __init__(
        self,
        gm: torch.fx.GraphModule,
        args: Sequence[Any],
        eager: dict[str, Any],
        versions: dict[str, list[tuple[int, Any]]] | None = None,
        stats=None,
        build: bool = True,
    ) -> None:
        if build:  # else a subclass builds the float64 module when it needs it
            super().__init__(_widened(double_copy(gm)))
        self.args, self.eager, self.versions = tuple(args), eager, versions or {}
        self.stats = stats or (lambda name: None)  # name -> metrics.RefStats of eager
        self.nodes = list((self.module if build else gm).graph.nodes)
        self.position = {n.name: i for i, n in enumerate(self.nodes)}
        self.propagated: dict[str, Truth] = {}
        self.spans: dict[tuple[str, Span], Truth | None] = {}
        self.outputs: list[Truth | None] = []
        self._scales: dict[str, tuple[float, float]] = {}
        # float64 values of nodes computed from eager inputs: a span starting there
        # (a convolution and its batch norm) reuses them
        self._alone: dict[str, torch.Tensor] = {}

    def compute(self) -> Twin:
        """One float64 pass: every node's propagated and single-node isolated truth."""
        with torch.no_grad(), float64_default():
            self.run(*as_double(self.args))
        return self

    def run_node(self, n: torch.fx.Node) -> Any:
        result = super().run_node(n)
        eager = self.eager.get(n.name)
        if n.op == "output":
            want = tree_flatten(eager)[0]
            got = tree_flatten(result)[0]
            if len(want) == len(got):
                self.outputs = [Truth.of(w, g) for w, g in zip(want, got)]
        elif isinstance(eager, torch.Tensor):
            truth = Truth.of(eager, result, self.stats(n.name))
            if truth is not None:
                self.propagated[n.name] = truth
                if n.op in CALLS:
                    self._evaluate(n.name, frozenset([n.name]))
        return result

    def isolated(self, node: str, span: Span) -> Truth | None:
        """The truth of `node` computed from eager's values of `span`'s inputs (every
        node of `span` up to `node` evaluated in float64), its scale the span's; None:
        there is none."""
        if not self._compute(node):  # an input or a parameter: exact either way
            return self.propagated.get(node)
        span = self._closed(node, frozenset(s for s in span if self._compute(s)))
        if (node, span) not in self.spans:
            with torch.no_grad(), float64_default():
                self._evaluate(node, span)
            truth = self.spans[(node, span)]
            if truth is not None and len(span) > 1:
                self.spans[(node, span)] = self._scaled(truth, span)
        return self.spans[(node, span)]

    def propagated_in(self, node: str, span: Span) -> Truth | None:
        """The propagated truth of `node`, its scale that of the stage's `span`."""
        truth = self.propagated.get(node)
        if truth is None or not self._compute(node) or span <= {node}:
            return truth
        closed = self._closed(node, frozenset(s for s in span if self._compute(s)))
        return self._scaled(truth, closed) if len(closed) > 1 else truth

    def _scaled(self, truth: Truth, span: Span) -> Truth:
        """`truth` with the span's scale (the largest RMS and max abs of its values)."""
        rms, amax = truth.rms, truth.amax
        for name in span:
            r, a = self._scale(name)
            rms, amax = max(rms, r), max(amax, a)
        return dataclasses.replace(truth, rms=rms, amax=amax)

    def _scale(self, name: str) -> tuple[float, float]:
        if name not in self._scales:
            v = self.eager.get(name)
            scale = (0.0, 0.0)
            if isinstance(v, torch.Tensor) and v.is_floating_point() and v.numel():
                v = torch.nan_to_num(v.detach().to(torch.float32), 0.0, 0.0, 0.0)
                norm = float(torch.linalg.vector_norm(v, dtype=torch.float64))
                scale = (norm / math.sqrt(v.numel()), float(v.abs().max()))
            self._scales[name] = scale
        return self._scales[name]

    def _closed(self, node: str, span: Span) -> Span:
        """`span` with every node on a path from it to `node` (a ``getitem`` between
        a batch norm and its ReLU, size arithmetic), without the nodes `node` does not
        depend on."""
        if span <= {node}:
            return frozenset([node])
        at = self.position[node]
        ancestors, todo = {node}, [self.nodes[at]]
        while todo:
            for a in todo.pop().all_input_nodes:
                if a.name not in ancestors:
                    ancestors.add(a.name)
                    todo.append(a)
        closed = {node}
        for n in self.nodes[:at]:
            if n.name not in ancestors or n.op not in CALLS:
                continue
            if n.name in span or any(a.name in closed for a in n.all_input_nodes):
                closed.add(n.name)
        return frozenset(closed)

    def _compute(self, name: str) -> bool:
        i = self.position.get(name)
        return i is not None and self.nodes[i].op in CALLS

    def _evaluate(self, node: str, span: Span) -> None:
        key = (node, span)
        eager = self.eager.get(node)
        if not isinstance(eager, torch.Tensor) or node not in self.propagated:
            self.spans[key] = None
            return
        env: dict[str, Any] = {}
        try:
            for n in self.nodes[: self.position[node] + 1]:
                if n.name not in span:
                    continue
                alone = not any(a.name in span for a in n.all_input_nodes)
                if alone and n.name in self._alone:
                    # a copy: an in-place op later in the span (a ReLU(inplace)
                    # after an add) must not change the value kept for other spans
                    env[n.name] = self._alone[n.name].clone()
                else:
                    env[n.name] = self._one(n, env)
        except Exception:  # noqa: BLE001 - no truth: the tolerance rule judges it
            self.spans[key] = None
            return
        if span == {node} and isinstance(env[node], torch.Tensor):
            self._alone[node] = env[node]
        self.spans[key] = Truth.of(eager, env[node], self.stats(node))

    def nbytes(self) -> int:
        """Bytes the twin keeps: eager's errors (bfloat16) and the float64 values
        of single nodes computed from eager inputs."""
        truths = [*self.propagated.values(), *self.spans.values()]
        kept = sum(_bytes(t.error) for t in truths if t is not None)
        return kept + sum(self._alone_bytes(n, v) for n, v in self._alone.items())

    def _alone_bytes(self, name: str, value: torch.Tensor) -> int:
        return value.untyped_storage().nbytes()

    def _one(self, n: torch.fx.Node, env: dict[str, Any]) -> Any:
        """Node `n` in float64, its inputs from `env` or else eager's values."""

        def value(a: torch.fx.Node) -> Any:
            if a.name in env:
                return env[a.name]
            if a.op == "get_attr":
                return self.fetch_attr(str(a.target))
            return as_double(self._eager_at(a, n))

        args = map_arg(n.args, value)
        kwargs = map_arg(n.kwargs, value)
        return getattr(self, n.op)(n.target, args, kwargs)

    def _eager_at(self, a: torch.fx.Node, reader: torch.fx.Node) -> Any:
        """Eager's value of `a` as `reader` saw it (after in-place ops before it)."""
        seen = self.eager.get(a.name)
        at = self.position[reader.name]
        for pos, value in self.versions.get(a.name, ()):
            if pos < at:
                seen = value
        return seen


def _bytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def twin_note(e: BaseException) -> str:
    """The report's note when the float64 twin does not run (raised `e`)."""
    text = str(e).splitlines()[0] if str(e) else ""
    return (
        f"no float64 twin ({type(e).__name__}: {text}): "
        "every value is judged by the tolerances"
    )


def float64_outputs(
    model: torch.nn.Module, inputs: Sequence[torch.Tensor], want: Sequence[Any]
) -> list[Truth | None] | None:
    """The float64 truths of `model`'s outputs `want` (eager's, flattened), from a
    double copy of `model` run on double copies of `inputs`; None when the twin does
    not run (or returns another number of outputs)."""
    try:
        twin = double_copy(model)
        with torch.no_grad(), float64_default():
            got = tree_flatten(twin(*as_double(tuple(inputs))))[0]
    except Exception:  # noqa: BLE001 - no truth: the tolerance rule judges
        return None
    got = [g for g in got if isinstance(g, torch.Tensor)]
    if len(got) != len(want):
        return None
    return [Truth.of(w, g) for w, g in zip(want, got)]
