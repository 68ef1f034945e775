"""Delta-debug an FX graph down to a small subgraph that still diverges (or still fails
to compile), and write it out as a standalone ``repro.py``.

The model is traced with Cuvil's own tracer (``cuvil.frontend.fx.trace``) and run once in
eager mode, keeping every node's value. A *candidate* is a set of kept compute nodes: it
becomes a GraphModule in which every input of a kept node that is not kept is a
placeholder fed with its saved eager value (non-tensor values such as sizes are inlined).
A candidate is *interesting* when, compiled with the caller's options, one of its outputs
differs from eager on the same subgraph (kind ``diverges``) or compilation raises a
``CuvilError`` of the same class as the original failure (kind ``compile-error``).

The search: the starting graph (the backward slice of ``target_node``, or the whole
graph), then the target alone, then the target with its nearest 1, 2, 4 ... producers
(fusion and folding bugs need a producer and its consumer together), then Zeller's ddmin
(subsets and complements) over what is left, down to a 1-minimal set or ``max_checks``.

Candidates are lowered from the GraphModule itself (``lower(gm, ..., gm=gm)``), not
retraced, so FX node names (and everything keyed by them: kernel names, injected faults)
stay those of the original model. ``repro.py`` compiles its module with ``cuvil.compile``,
which retraces it; `write_repro` renames the node names in ``FAULTS`` to the retraced ones.
"""

from __future__ import annotations

import math
import operator
import re
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch.fx
from torch.utils._pytree import tree_flatten, tree_map

import cuvil
from cuvil.errors import CuvilError
from cuvil.frontend import lower
from cuvil.frontend.fx import trace
from cuvil.pipeline import Options, compile_module

from ..faults import hooks as fault_hooks
from . import metrics
from .model import Tolerance

__all__ = ["ReduceResult", "reduce_model", "compare"]
KINDS = ("diverges", "compile-error")
_CALLS = ("call_function", "call_method", "call_module")
_INPLACE_FUNCS = {operator.iadd, operator.isub, operator.imul, operator.itruediv}
_LITERALS = (int, float, bool, str, type(None), torch.dtype, torch.device)


@dataclass
class ReduceResult:
    """A reduced graph that still shows the problem, with the inputs to run it on."""

    gm: torch.fx.GraphModule  # the reduced graph (placeholders for cut inputs)
    inputs: tuple[torch.Tensor, ...]  # saved inputs for it (eager values of cut edges)
    nodes: int  # compute nodes left (not placeholder/get_attr/output)
    original_nodes: int
    checks: int  # how many candidate subgraphs were compiled/tested
    kind: str  # "diverges" | "compile-error"
    detail: str  # e.g. "max abs 0.51 at output 0" or the error message
    rtol: float = 1e-4
    atol: float = 1e-5

    def summary(self) -> str:
        return (
            f"{self.kind}: {self.detail}; reduced {self.original_nodes} -> "
            f"{self.nodes} compute nodes in {self.checks} checks"
        )


@dataclass
class _Outcome:
    status: str  # "ok" | "diverges" | "error" | "invalid" (not a runnable candidate)
    detail: str = ""
    signature: tuple[str, str] | None = None  # errors: (class, normalized message)


class _Budget(Exception):
    """max_checks reached."""


# ---- public API ---------------------------------------------------------------------------


def reduce_model(
    model: torch.nn.Module,
    inputs: Sequence[torch.Tensor],
    options: dict | None = None,
    *,
    target_node: str | None = None,
    rtol: float = 1e-4,
    atol: float = 1e-5,
    max_checks: int = 200,
    log: Callable[[str], None] | None = None,
) -> ReduceResult:
    """Reduce `model` (on `inputs`, compiled with `options`) to a small subgraph that
    still diverges from eager, or still fails to compile the same way.

    `target_node` (an FX node name, e.g. the diff's first divergence) starts from the
    backward slice ending at that node, whose value is then the only output compared.
    Raises CuvilError when the starting graph compiles and matches eager (nothing to
    reduce) or `target_node` is not a compute node of the traced graph.
    """
    Options.parse(options)  # a bad option is the user's mistake, reported once
    was_training = model.training
    model.eval()
    try:
        reducer = _Reducer(model, inputs, options, rtol, atol, max_checks, log)
        return reducer.run(target_node)
    finally:
        model.train(was_training)


# ---- the reducer --------------------------------------------------------------------------


class _Reducer:
    def __init__(self, model, inputs, options, rtol, atol, max_checks, log) -> None:
        self.options = dict(options or {})
        self.opts = Options.parse(self.options)
        self.rtol, self.atol = rtol, atol
        self.max_checks = max_checks
        self.log = log or (lambda _msg: None)
        try:
            self.gm = trace(model)
        except Exception as e:
            raise CuvilError(
                f"torch.fx could not trace {type(model).__name__}: "
                f"{type(e).__name__}: {e}"
            ) from e
        self.nodes = list(self.gm.graph.nodes)
        self.index = {n: i for i, n in enumerate(self.nodes)}
        self.compute = [n for n in self.nodes if n.op in _CALLS]
        self.values, self.versions = _record(self.gm, inputs)
        self.cache: dict[frozenset, _Outcome] = {}
        self.checks = 0
        self.kind: str | None = None
        self.signature: tuple[str, str] | None = None
        self.target: torch.fx.Node | None = None

    # ---- the search --------------------------------------------------------------------
    def run(self, target_name_: str | None) -> ReduceResult:
        if target_name_ is not None:
            return self._run_target(self._node(target_name_))
        start = frozenset(self.compute)
        self._baseline(start, "the model")
        anchor = None
        if self.kind == "compile-error":  # start next to the node the error names
            anchor = self._error_node(self.cache[start])
        try:
            best = start if anchor is None else self._window(anchor, start) or start
            best = self._ddmin(best, frozenset())
        except _Budget:
            best = self._stopped()
        return self._result(best)

    def _run_target(self, target: torch.fx.Node) -> ReduceResult:
        """The target alone, then with its nearest producers: a divergence found on
        the way needs no baseline. Only when none diverges is the whole slice
        compiled, to learn whether (and how) it fails."""
        self.target = target
        start = frozenset(self._ancestors(target)) | {target}
        pinned = frozenset([target])
        try:
            self.kind = "diverges"
            best = self._window(target, start)
            if best is None:
                self._baseline(start, f"the slice ending at '{target.name}'")
                best = self._window(target, start) or start
            best = self._ddmin(best, pinned)
        except _Budget:
            best = self._stopped()
        return self._result(best)

    def _baseline(self, start: frozenset, what: str) -> None:
        first = self._check(start, force=True)
        if first.status == "ok":
            raise CuvilError(
                f"{what} compiles and matches eager within rtol={self.rtol:g}, "
                f"atol={self.atol:g}: nothing to reduce"
            )
        if first.status == "invalid":
            raise CuvilError(f"cannot reduce {what}: {first.detail}")
        self.kind = "diverges" if first.status == "diverges" else "compile-error"
        self.signature = first.signature
        self._best = start
        self.log(f"start: {len(start)} nodes, {self.kind}: {first.detail}")

    def _stopped(self) -> frozenset:
        self.log(f"stopped after max_checks={self.max_checks} checks")
        if self._best is None:
            what = "diverges" if self.kind == "diverges" else "fails to compile"
            raise CuvilError(
                f"no subgraph that {what} was found within "
                f"max_checks={self.max_checks}",
                hint="raise max_checks",
            )
        return self._best

    def _window(self, anchor: torch.fx.Node, start: frozenset) -> frozenset | None:
        """The anchor alone, then with its nearest 1, 2, 4 ... producers, up to the
        whole `start`; the first interesting one, or None."""
        preds = [p for p in self._nearest_producers(anchor) if p in start]
        k = 0
        while True:
            kept = frozenset([anchor, *preds[:k]])
            if self._interesting(kept):
                return kept
            if k >= len(preds):
                return None
            k = min(len(preds), 1 if k == 0 else 2 * k)

    def _ddmin(self, best: frozenset, pinned: frozenset) -> frozenset:
        """Zeller's ddmin over the unpinned nodes: 1-minimal within max_checks."""
        items = sorted(best - pinned, key=self.index.__getitem__)
        n = 2
        while len(items) >= 2 or (len(items) == 1 and pinned):
            if len(items) == 1:  # can the last free node go as well?
                if self._interesting(pinned):
                    items = []
                break
            chunks = _split(items, min(n, len(items)))
            reduced = False
            for chunk in chunks:  # keep one chunk
                if self._interesting(pinned | frozenset(chunk)):
                    items, n, reduced = chunk, 2, True
                    break
            if not reduced and len(chunks) > 2:
                for chunk in chunks:  # remove one chunk
                    rest = [x for x in items if x not in set(chunk)]
                    if self._interesting(pinned | frozenset(rest)):
                        items, n, reduced = rest, max(n - 1, 2), True
                        break
            if not reduced:
                if n >= len(items):
                    break
                n = min(len(items), 2 * n)
        return pinned | frozenset(items)

    def _interesting(self, kept: frozenset) -> bool:
        out = self._check(kept)
        if self.kind == "diverges":
            ok = out.status == "diverges"
        else:
            ok = out.status == "error" and out.signature == self.signature
        if ok and (self._best is None or len(kept) < len(self._best)):
            self._best = kept
        return ok

    _best: frozenset | None = None

    # ---- one candidate -----------------------------------------------------------------
    def _check(self, kept: frozenset, force: bool = False) -> _Outcome:
        kept = self._close(kept)
        if kept in self.cache:
            return self.cache[kept]
        if not force and self.checks >= self.max_checks:
            raise _Budget
        built = self._build(kept)
        if built is None:
            out = _Outcome("invalid", "no tensor output")
        else:
            self.checks += 1
            out = self._evaluate(*built)
            self.log(
                f"check {self.checks}: {len(kept)} nodes -> {out.status}"
                + (f" ({out.detail})" if out.status != "ok" else "")
            )
        self.cache[kept] = out
        return out

    def _evaluate(self, gm, inputs, names) -> _Outcome:
        try:
            with torch.no_grad():
                want = _tensors(gm(*_clone(inputs)))
        except Exception as e:
            return _Outcome("invalid", f"eager failed: {type(e).__name__}: {e}")
        try:
            compiled = self._compile(gm, inputs)
            with torch.no_grad():
                got = _tensors(compiled(*_clone(inputs)))
        except CuvilError as e:
            return _Outcome("error", _one_line(e), _signature(e))
        except Exception as e:
            return _Outcome("invalid", f"{type(e).__name__}: {e}")
        detail = compare(got, want, self.rtol, self.atol, names)
        return _Outcome("ok") if detail is None else _Outcome("diverges", detail)

    def _compile(self, gm: torch.fx.GraphModule, inputs):
        hooks = fault_hooks()  # an enclosing faults.inject block's, if any
        if self.opts.frontend != "fx":
            return cuvil.compile(gm, _clone(inputs), options=self.options, hooks=hooks)
        # cuvil.compile minus the retrace, so that FX node names stay the model's
        module = lower(gm, _clone(inputs), "fx", gm=gm, hooks=hooks)
        return compile_module(module, self.opts, hooks=hooks)

    def _build(self, kept: frozenset):
        """(GraphModule, inputs, output names) for a candidate; None without outputs."""
        order = [n for n in self.nodes if n in kept]
        if self.target is not None and self.target in kept:
            sinks = [self.target]
        else:
            used = {a for n in order for a in n.all_input_nodes if a in kept}
            sinks = [n for n in order if n not in used]
        sinks = [n for n in sinks if _is_output_value(self.values.get(n))]
        if not sinks:
            return None
        graph = torch.fx.Graph()
        placeholders: dict[tuple, torch.fx.Node] = {}
        inputs: list[torch.Tensor] = []
        cut: dict[tuple, Any] = {}
        for n in order:  # the cut inputs, in the order the model computes them
            for a in n.all_input_nodes:
                if a not in kept and a.op != "get_attr":
                    cut.setdefault(self._version(a, n), None)
        for key in sorted(cut, key=lambda k: (self.index[k[0]], k[1])):
            node, version = key
            value = self._versions_of(node)[version][1]
            if isinstance(value, torch.Tensor):
                name = node.name if version == 0 else f"{node.name}_v{version}"
                ph = graph.placeholder(name)
                ph.meta["reduce_cut"] = node.name
                ph.meta["stack_trace"] = node.meta.get("stack_trace")
                placeholders[key] = ph
                inputs.append(value)
            else:
                cut[key] = _literal(value)
        env: dict[torch.fx.Node, Any] = {}
        for n in order:

            def arg(a: torch.fx.Node, n=n) -> Any:
                if a in env:
                    return env[a]
                if a.op == "get_attr":
                    env[a] = graph.node_copy(a)
                    return env[a]
                key = self._version(a, n)
                return placeholders[key] if key in placeholders else cut[key]

            env[n] = graph.node_copy(n, arg)
        graph.output(tuple(env[s] for s in sinks))
        graph.lint()
        gm = torch.fx.GraphModule(self.gm, graph, "Reduced")
        return gm, tuple(inputs), [s.name for s in sinks]

    def _close(self, kept: frozenset) -> frozenset:
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

    def _versions_of(self, node: torch.fx.Node) -> list[tuple[int, Any]]:
        return self.versions.get(node) or [(self.index[node], self.values.get(node))]

    def _version(self, a: torch.fx.Node, reader: torch.fx.Node) -> tuple:
        """Which saved value of `a` `reader` sees: the last one taken before it runs
        (a value changes when an in-place op mutates it)."""
        at = self.index[reader]
        best = 0
        for i, (pos, _) in enumerate(self._versions_of(a)):
            if pos < at:
                best = i
        return (a, best)

    # ---- helpers -----------------------------------------------------------------------
    def _node(self, name: str) -> torch.fx.Node:
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

    def _ancestors(self, node: torch.fx.Node) -> set[torch.fx.Node]:
        seen: set[torch.fx.Node] = set()
        todo = list(node.all_input_nodes)
        while todo:
            a = todo.pop()
            if a in seen or a.op not in _CALLS:
                continue
            seen.add(a)
            todo.extend(a.all_input_nodes)
        return seen

    def _nearest_producers(self, node: torch.fx.Node) -> list[torch.fx.Node]:
        """Compute-node ancestors, breadth first (nearest first; later ones first)."""
        out, seen = [], {node}
        queue = deque([node])
        while queue:
            n = queue.popleft()
            for a in sorted(
                n.all_input_nodes, key=self.index.__getitem__, reverse=True
            ):
                if a not in seen and a.op in _CALLS:
                    seen.add(a)
                    out.append(a)
                    queue.append(a)
        return out

    def _error_node(self, outcome: _Outcome) -> torch.fx.Node | None:
        m = re.search(r"FX node '([^']+)'", outcome.detail)
        if m:
            for n in self.compute:
                if n.name == m.group(1):
                    return n
        return None

    def _result(self, kept: frozenset) -> ReduceResult:
        kept = self._close(kept)
        gm, inputs, _ = self._build(kept)
        out = self.cache[kept]
        gm.meta["reduce"] = {"kind": self.kind, "detail": out.detail}
        return ReduceResult(
            gm=gm,
            inputs=inputs,
            nodes=sum(n.op in _CALLS for n in gm.graph.nodes),
            original_nodes=len(self.compute),
            checks=self.checks,
            kind=self.kind,
            detail=out.detail,
            rtol=self.rtol,
            atol=self.atol,
        )


# ---- eager values -------------------------------------------------------------------------


class _Recorder(torch.fx.Interpreter):
    """Runs the graph in eager mode and keeps a copy of every node's value, plus the
    later values of tensors that in-place ops mutate."""

    def __init__(self, gm: torch.fx.GraphModule) -> None:
        super().__init__(gm)
        self.saved: dict[torch.fx.Node, Any] = {}
        self.versions: dict[torch.fx.Node, list[tuple[int, Any]]] = {}
        self.position = {n: i for i, n in enumerate(gm.graph.nodes)}

    def run_node(self, n: torch.fx.Node) -> Any:
        result = super().run_node(n)
        self.saved[n] = _snapshot(result)
        first = n.args[0] if n.args else None
        if isinstance(first, torch.fx.Node) and self._inplace(n) and first in self.env:
            versions = self.versions.setdefault(
                first, [(self.position[first], self.saved[first])]
            )
            versions.append((self.position[n], _snapshot(self.env[first])))
        return result

    def _inplace(self, n: torch.fx.Node) -> bool:
        if n.kwargs.get("inplace") is True or n.target in _INPLACE_FUNCS:
            return True
        if n.op == "call_method":
            name = str(n.target)
            return name.endswith("_") and not name.endswith("__")
        if n.op == "call_module":
            return (
                getattr(self.module.get_submodule(n.target), "inplace", False) is True
            )
        return False


def _record(gm: torch.fx.GraphModule, inputs: Sequence[torch.Tensor]):
    recorder = _Recorder(gm)
    try:
        with torch.no_grad():
            recorder.run(*_clone(inputs))
    except Exception as e:
        raise CuvilError(
            f"the traced model failed to run on the example inputs: "
            f"{type(e).__name__}: {e}"
        ) from e
    return recorder.saved, recorder.versions


def _snapshot(value: Any) -> Any:
    return tree_map(
        lambda x: x.detach().clone() if isinstance(x, torch.Tensor) else x, value
    )


def _clone(inputs: Iterable[torch.Tensor]) -> tuple:
    return tuple(
        x.detach().clone() if isinstance(x, torch.Tensor) else x for x in inputs
    )


# ---- values and comparisons ---------------------------------------------------------------


def _tensors(value: Any) -> list[torch.Tensor]:
    return [x for x in tree_flatten(value)[0] if isinstance(x, torch.Tensor)]


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


def compare(
    got: Sequence[torch.Tensor],
    want: Sequence[torch.Tensor],
    rtol: float,
    atol: float,
    names: Sequence[str] | None = None,
) -> str | None:
    """None when every output matches (NaN where eager has NaN counts as equal), else
    the worst difference, e.g. ``max abs 0.51 at output 0 (relu_1)``."""
    if len(got) != len(want):
        return f"{len(got)} outputs, eager has {len(want)}"
    worst: tuple[float, str] | None = None
    for i, (g, w) in enumerate(zip(got, want)):
        where = f"output {i}" + (
            f" ({names[i]})"
            if names and i < len(names) and len(names) == len(want)
            else ""
        )
        problem = _difference(g, w, rtol, atol)
        if problem is not None:
            score, text = problem
            if worst is None or score > worst[0]:
                worst = (score, f"{text} at {where}")
    return None if worst is None else worst[1]


def _difference(g: torch.Tensor, w: torch.Tensor, rtol, atol):
    """(score, words) when `g` is off from eager by the diff's own criterion (normwise,
    NaN-aware, exact for integers), else None."""
    if tuple(g.shape) != tuple(w.shape):
        return math.inf, f"shape {tuple(g.shape)} vs eager {tuple(w.shape)}"
    m = metrics.compare(g, w, Tolerance(rtol, atol))
    if m.ok:
        return None
    if m.nan:
        return math.inf, f"{m.nan} NaN where eager has none"
    if not m.dtype.startswith(("f", "bf")):
        return math.inf, f"{m.mismatched} of {m.numel} elements differ"
    if math.isinf(m.max_abs):
        return math.inf, "a NaN or Inf where eager has another value"
    return m.max_abs, f"max abs {m.max_abs:.3g}"


def _signature(e: BaseException) -> tuple[str, str]:
    """The class of a failure: the error type and its message without node names,
    value names and numbers (which change from one candidate to the next)."""
    msg = str(getattr(e, "message", None) or e)
    msg = re.sub(r"\s*\(FX node '[^']*'\)", "", msg)
    msg = re.sub(r"FX node '[^']*'", "FX node", msg)
    msg = re.sub(r"%[\w.]+", "%_", msg)
    msg = re.sub(r"\d+", "N", msg)
    return type(e).__name__, msg


def _one_line(e: BaseException) -> str:
    text = str(e).splitlines()[0] if str(e) else ""
    return f"{type(e).__name__}: {text}"


def _split(items: list, n: int) -> list[list]:
    size, extra = divmod(len(items), n)
    out, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        if end > start:
            out.append(items[start:end])
        start = end
    return out
