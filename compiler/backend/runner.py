"""What torch.compile calls for one dynamo graph: weights frozen, a build per shape.

``GraphRunner`` is the callable the backend returns. On its first call it freezes the
module's weights (weights.py) and builds a *plan* for the call's input shapes:

1. the graph's sizes bound (a symbolic graph: frontend/specialize.py) and its int
   outputs set aside (they are fixed by the shapes);
2. the survey (survey.py) lowers every node it can and records every refusal;
3. nothing refused: the survey's module is compiled whole (one Cuvil module, the same
   passes and kernels as ``cuvil.compile``); else the graph is split (split.py): Cuvil
   regions, each compiled per shape on first use, and the refused ops run eagerly
   (strict mode raises instead, naming every refused op and its line);
4. a build Cuvil cannot do at all runs the graph eagerly, says so once (a warning) and
   in the report.

A static graph has one plan; a symbolic one a plan per concrete shape
(runtime/dynamic.py's cache), so a new shape never changes how the known ones run.
A changed weight (the guard) rebuilds; after ``MAX_WEIGHT_CHANGES`` the weights are
compiled as inputs instead (slower, never stale).
"""

from __future__ import annotations

import operator
import os
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import torch
import torch.fx

from ..errors import CuvilError, UnsupportedOpError
from ..frontend.fx import _propagate_shapes
from ..frontend.provenance import node_loc
from ..frontend.specialize import is_symbolic, split_outputs
from ..options import CompileOptions
from ..pipeline import compile_module
from ..runtime.dynamic import DynamicCompiledModule
from .plans import (
    Region,
    copy_graph,
    count_ops,
    internal,
    one_line,
    whole,
    with_template,
)
from .records import BuildRecord, GraphRecord, RegionRecord, new_graph
from .scalars import bind, scalar_inputs
from .split import split_graph, written_nodes
from .survey import Refusal, op_name, short_path, survey
from .weights import WeightGuard, freeze, weight_inputs

__all__ = [
    "GraphRunner",
    "BackendWarning",
    "EagerFallbackWarning",
    "MAX_WEIGHT_CHANGES",
]

MAX_WEIGHT_CHANGES = 2


class BackendWarning(UserWarning):
    """Something the user should know about how the backend runs their model."""


class EagerFallbackWarning(BackendWarning):
    """Some ops of a compiled graph run eagerly (torch), not as Cuvil code."""


class _Unfreeze(Exception):
    """A frozen tensor is written by the graph: rebuild with it as an input."""

    def __init__(self, names: set[str]) -> None:
        self.names = names


class GraphRunner:
    """The compiled form of one dynamo graph (module docstring)."""

    def __init__(
        self, gm, example_inputs, opts: CompileOptions, strict: bool, autograd=False
    ) -> None:
        self.gm, self.opts, self.strict = gm, opts, strict
        self.record: GraphRecord = new_graph(_where(gm))
        self.record.autograd = autograd
        # Python numbers dynamo passes as 0-d tensors (dynamic=True): keyed by value
        self.scalars = scalar_inputs(gm)
        self.symbolic = bool(self.scalars) or any(
            is_symbolic(x) for x in example_inputs
        )
        self.weights = weight_inputs(gm, example_inputs)
        self.thawed: set[int] = set()  # weights taken as inputs after all
        self.guard: WeightGuard | None = None
        self.plan: Callable[..., Any] | None = None  # the static graph's
        self.cache: DynamicCompiledModule | None = None  # a symbolic graph's plans
        self.frozen: torch.fx.GraphModule | None = None
        self.keep: list[int] | None = None
        self.names: dict[int, str] = {}  # frozen input -> its name in the graph
        self.scalar_pos: list[int] = []
        self._lock = threading.RLock()  # builds: one at a time

    def __call__(self, *args: Any) -> Any:
        guard = self.guard
        if self.keep is None or (guard is not None and not guard.holds(args)):
            with self._lock:
                guard = self.guard
                if self.keep is None or (guard is not None and not guard.holds(args)):
                    self._prepare(args)
        runtime = self.pick(args)
        if self.scalar_pos:
            runtime = list(runtime)
            for i in self.scalar_pos:
                runtime[i] = runtime[i].item()
        try:
            if self.cache is not None:
                return self.cache(*runtime)
            plan = self.plan or self._static(runtime)
            return plan(*runtime)
        except _Unfreeze as u:  # (not a weight change: the guard is not consulted)
            self.thawed |= {i for i, n in self.names.items() if n in u.names}
            self.keep = self.guard = None
            return self(*args)

    # ---- weights ---------------------------------------------------------------------
    def _prepare(self, args: Sequence[Any]) -> None:
        """(Re)freeze the weights from this call's tensors; every plan is rebuilt."""
        if self.guard is not None:  # a weight changed since the last build
            self.record.weight_changes += 1
            why = self.guard.what_changed(args)
            if self.record.weight_changes > MAX_WEIGHT_CHANGES:
                self.thawed |= set(self.weights)
                warnings.warn(
                    f"cuvil: the weights of the graph at {self.record.where} changed "
                    f"{self.record.weight_changes} times (last: {why}); they are inputs "
                    "of its compiled code from now on (no constant folding)",
                    BackendWarning,
                    stacklevel=_user_stacklevel(),
                )
        if self.guard is None and self.weights and self.record.weight_changes == 0:
            self.thawed |= self._written_inputs(args)
        frozen = [i for i in self.weights if i not in self.thawed]
        tensors = [args[i] for i in frozen]
        self.frozen, names = (
            freeze(self.gm, frozen, tensors) if frozen else (self.gm, [])
        )
        self.guard = WeightGuard(frozen, args, names) if frozen else None
        self.names = dict(zip(frozen, names))
        self.record.weights = _weights_text(
            len(frozen), len(self.weights), self.record.autograd
        )
        taken = set(frozen)
        self.keep = [i for i in range(len(args)) if i not in taken]
        self.pick = _picker(self.keep)
        self.scalar_pos = [j for j, i in enumerate(self.keep) if i in self.scalars]
        self.plan = None
        runtime = [args[i] for i in self.keep]
        self.cache = (
            DynamicCompiledModule(self._build, None, runtime, who="dynamo graph")
            if self.symbolic
            else None
        )

    def _written_inputs(self, args: Sequence[Any]) -> set[int]:
        """The inputs the graph writes in place (a buffer updated by the model): found
        by one run on copies, before any constant is made of them."""
        gm = bind(self.gm, args) if self.symbolic else copy_graph(self.gm)
        try:
            _propagate_shapes(gm, [x for x in args if isinstance(x, torch.Tensor)])
        except CuvilError:  # the build will say why
            return set()
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        written = set(written_nodes(gm))
        tensors = [i for i, x in enumerate(args) if isinstance(x, torch.Tensor)]
        return {i for i, node in zip(tensors, placeholders) if node in written}

    def _static(self, runtime: list[Any]) -> Callable[..., Any]:
        with self._lock:
            if self.plan is None:
                self.plan = self._build(runtime)
            return self.plan

    # ---- builds ----------------------------------------------------------------------
    def _build(self, args: list[Any]) -> Callable[..., Any]:
        """The plan for the shapes of `args` (module docstring, steps 1-4)."""
        gm = bind(self.frozen, args) if self.symbolic else copy_graph(self.frozen)
        tensors = [x for x in args if isinstance(x, torch.Tensor)]
        gm, template = split_outputs(gm, [x.clone() for x in tensors])  # (it runs gm)
        build = BuildRecord(_shapes(args))
        try:
            plan = self._compile(gm, tensors, build)
        except _Unfreeze:
            raise
        except CuvilError as e:
            return self._eager(gm, build, template, e)
        except Exception as e:  # a bug of Cuvil's: the graph still runs, and says so
            return self._eager(gm, build, template, internal(e))
        self.record.add(build)
        self._warn(build)
        return with_template(plan, template, tensors_only=self.symbolic)

    def _compile(self, gm, tensors, build: BuildRecord) -> Callable[..., Any]:
        walk = survey(gm, tensors, "DynamoGraph")
        written = {str(n.target) for n in written_nodes(gm) if n.op == "get_attr"}
        if written & set(self.names.values()):
            raise _Unfreeze(written)
        build.refused = list(walk.refused.values())
        if walk.refused:
            if self.strict:
                raise _strict_error(build.refused, self.record.where)
            return self._split(walk, build)
        compiled = compile_module(walk.cx.module, self.opts)
        region = RegionRecord(ops=count_ops(gm), kernels=len(compiled.kernels))
        build.regions.append(region)
        return whole(compiled, region, build)

    def _split(self, walk, build: BuildRecord) -> Callable[..., Any]:
        def make_region(index: int, region_gm: torch.fx.GraphModule):
            record = RegionRecord(ops=count_ops(region_gm))
            build.regions.append(record)
            return Region(region_gm, record, self.opts, self.strict, index)

        split = split_graph(walk, make_region)
        for step in split.eager:
            build.eager_ops += [_describe(n) for n in step]
        top = split.top

        def run(*tensors: Any) -> Any:
            build.calls += 1
            return top(*tensors)

        return run

    def _eager(self, gm, build: BuildRecord, template, e: CuvilError):
        if self.strict:
            raise e
        build.error, build.regions, build.eager_ops = one_line(e), [], []
        self.record.add(build)
        self._warn(build)

        def run(*tensors: Any) -> Any:
            build.calls += 1
            return gm(*tensors)

        return with_template(run, template, tensors_only=self.symbolic)

    def _warn(self, build: BuildRecord) -> None:
        if build.kind == "cuvil" or self.record.warned:
            return
        self.record.warned = True
        where = f"the graph at {self.record.where}, shapes {build.shapes},"
        if build.kind == "eager":
            text = f"no Cuvil code runs for {where}: {build.error}"
        else:
            ops = "; ".join(r.line() for r in build.refused[:8])
            more = (
                f" (and {len(build.refused) - 8} more)"
                if len(build.refused) > 8
                else ""
            )
            text = (
                f"{len(build.eager_ops)} op(s) of {where} run eagerly, Cuvil runs the "
                f"rest ({len(build.regions)} region(s)): {ops}{more}"
            )
        warnings.warn(
            f"cuvil: {text}. cuvil.backend.report() shows what ran where; "
            "CUVIL_FALLBACK=0 makes this an error",
            EagerFallbackWarning,
            stacklevel=_user_stacklevel(),
        )


def _picker(indices: list[int]) -> Callable[[Sequence[Any]], Sequence[Any]]:
    """args -> the args at `indices`, as a sequence (itemgetter: one C call)."""
    if len(indices) == 1:
        (i,) = indices
        return lambda args: (args[i],)
    return operator.itemgetter(*indices) if indices else lambda args: ()


def _weights_text(frozen: int, weights: int, autograd: bool) -> str:
    if frozen:
        return f"{frozen} constant(s)"
    if autograd:
        return "inputs (the forward of an autograd graph)"
    return f"{weights} input(s)" if weights else "none"


def _describe(node: torch.fx.Node) -> str:
    where = short_path(node_loc(node).source())
    return f"{op_name(node)} at {where}" if where else op_name(node)


def _where(gm: torch.fx.GraphModule) -> str:
    for n in gm.graph.nodes:
        loc = node_loc(n) if n.op != "placeholder" else None
        if loc is not None and loc.file:
            return short_path(f"{loc.file}:{loc.line}") or "?"
    return "<no source line>"


_INTERNAL = (
    os.path.dirname(torch.__file__),
    os.path.dirname(os.path.dirname(__file__)),
)


def _user_stacklevel() -> int:
    """The stacklevel of the first caller outside torch and Cuvil (the model's code)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_INTERNAL):
        frame, level = frame.f_back, level + 1
    return level


def _shapes(args: Sequence[Any]) -> str:
    parts = [
        "x".join(map(str, x.shape)) or "()" for x in args if isinstance(x, torch.Tensor)
    ]
    return "(" + ", ".join(parts) + ")"


def _strict_error(refused: list[Refusal], where: str) -> UnsupportedOpError:
    first = refused[0]
    text = (
        f"Cuvil cannot compile {len(refused)} op(s) of the graph at {where}:\n"
        + "\n".join(f"  {r.line()}" for r in refused)
    )
    e = UnsupportedOpError(
        first.op,
        where=first.where,
        hint="unset CUVIL_FALLBACK (or pass options={'fallback': 'partition'}) to run "
        "them eagerly and the rest as Cuvil code; docs/OPS.md lists the supported ops",
    )
    e.message, e.args = text, (text,)
    return e
