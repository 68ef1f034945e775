"""Delta-debug an FX graph down to a small subgraph that still diverges (or still fails
to compile), and write it out as a standalone ``repro.py``.

The model is traced with Cuvil's own tracer (``cuvil.frontend.fx.trace``) and run once in
eager mode, keeping every node's value. A *candidate* is a set of kept compute nodes,
cut out of the graph as a GraphModule by `subgraph.Graph` (the surgery: placeholders
for cut edges, fed with their saved eager values). This module is the search and the
judge: a candidate is *interesting* when, compiled with the caller's options, one of its outputs
differs from eager on the same subgraph (kind ``diverges``, the `oracle`'s verdict) or compilation raises a
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

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
import torch.fx

import cuvil
from cuvil.errors import CuvilError
from cuvil.frontend import lower
from cuvil.pipeline import Options, compile_module

from ..faults import hooks as fault_hooks
from .checks import static_options
from .judge import Judge, resolve
from .oracle import Oracle, compare_outputs, one_line, tensors
from .status import Outcome, ReduceKind
from .subgraph import CALLS, Candidate, Graph, clone
from .truth import float64_outputs

__all__ = ["ReduceResult", "reduce_model", "compare", "ddmin"]
KINDS = tuple(ReduceKind)


@dataclass
class ReduceResult:
    """A reduced graph that still shows the problem, with the inputs to run it on."""

    gm: torch.fx.GraphModule  # the reduced graph (placeholders for cut inputs)
    inputs: tuple[torch.Tensor, ...]  # saved inputs for it (eager values of cut edges)
    nodes: int  # compute nodes left (not placeholder/get_attr/output)
    original_nodes: int
    checks: int  # how many candidate subgraphs were compiled/tested
    kind: ReduceKind  # diverges | compile-error
    detail: str  # e.g. "max abs 0.51 at output 0" or the error message
    rtol: float = 1e-4
    atol: float = 1e-5
    judge: dict | None = None  # the float64 rule (Judge.describe()); None: rtol/atol
    dynamic: dict | None = None  # the dynamic-shape options the model was given

    def summary(self) -> str:
        return (
            f"{self.kind}: {self.detail}; reduced {self.original_nodes} -> "
            f"{self.nodes} compute nodes in {self.checks} checks"
        )


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
    judge: Judge | str | None = "float64",
) -> ReduceResult:
    """Reduce `model` (on `inputs`, compiled with `options`) to a small subgraph that
    still diverges from eager, or still fails to compile the same way.

    `target_node` (an FX node name, e.g. the diff's first divergence) starts from the
    backward slice ending at that node, whose value is then the only output compared.
    `judge` is the diff's (judge.py): "float64" (default; each candidate's outputs
    against a float64 run of the candidate, eager's error times the factor),
    "normwise"/None (`rtol`/`atol`) or a Judge. ``dynamic`` / ``dynamic_shapes`` in
    `options`: the static build of `inputs`' shapes is reduced (a dynamic compile
    builds each shape so). Raises CuvilError when the starting graph compiles and
    matches eager (nothing to reduce) or `target_node` is not a compute node of the
    traced graph.
    """
    options, dynamic = static_options(options)
    Options.parse(options)  # a bad option is the user's mistake, reported once
    oracle = Oracle.within(rtol, atol, resolve(judge))
    was_training = model.training
    model.eval()
    try:
        graph = Graph.trace(model, inputs)
        tester = _Tester(graph, options, oracle, max_checks, log)
        result = _Reducer(tester).run(target_node)
    finally:
        model.train(was_training)
    result.dynamic = dynamic or None
    return result


def compare(*args, **kwargs) -> str | None:
    """`oracle.compare_outputs` (got, want, rtol, atol, names) in reduce's words: None
    when every output matches eager, else the worst difference and where it is, e.g.
    ``max abs 0.51 at output 0 (relu_1)``."""
    return compare_outputs(*args, **kwargs).problem


# ---- one candidate ----------------------------------------------------------------------


@dataclass
class _Outcome:
    status: Outcome
    detail: str = ""
    signature: tuple[str, str] | None = None  # errors: (class, normalized message)


class _Budget(Exception):
    """max_checks reached."""


class _Tester:
    """Compiles and judges candidates, each set of kept nodes once (memoized), at
    most `max_checks` of them."""

    def __init__(self, graph: Graph, options, oracle: Oracle, max_checks, log) -> None:
        self.graph = graph
        self.options = dict(options or {})
        self.opts = Options.parse(self.options)
        self.oracle = oracle
        self.max_checks = max_checks
        self.log = log or (lambda _msg: None)
        self.cache: dict[frozenset, _Outcome] = {}
        self.checks = 0
        self.target: torch.fx.Node | None = None  # the only output, when kept

    def check(self, kept: frozenset, force: bool = False) -> _Outcome:
        kept = self.graph.close(kept)
        if kept in self.cache:
            return self.cache[kept]
        if not force and self.checks >= self.max_checks:
            raise _Budget
        candidate = self.graph.build(kept, self.target)
        if candidate is None:
            out = _Outcome(Outcome.INVALID, "no tensor output")
        else:
            self.checks += 1
            out = self._evaluate(candidate)
            self.log(
                f"check {self.checks}: {len(kept)} nodes -> {out.status}"
                + (f" ({out.detail})" if out.status != Outcome.OK else "")
            )
        self.cache[kept] = out
        return out

    def _evaluate(self, c: Candidate) -> _Outcome:
        try:
            with torch.no_grad():
                want = tensors(c.gm(*clone(c.inputs)))
        except Exception as e:
            return _Outcome(Outcome.INVALID, f"eager failed: {type(e).__name__}: {e}")
        try:
            compiled = self._compile(c.gm, c.inputs)
            with torch.no_grad():
                got = tensors(compiled(*clone(c.inputs)))
        except CuvilError as e:
            return _Outcome(Outcome.ERROR, one_line(e), _signature(e))
        except Exception as e:
            return _Outcome(Outcome.INVALID, f"{type(e).__name__}: {e}")
        truths = None
        if self.oracle.judge is not None:
            truths = float64_outputs(c.gm, clone(c.inputs), want)
        detail = self.oracle.compare(got, want, c.names, truths).problem
        if detail is None:
            return _Outcome(Outcome.OK)
        return _Outcome(Outcome.DIVERGES, detail)

    def _compile(self, gm: torch.fx.GraphModule, inputs):
        hooks = fault_hooks()  # an enclosing faults.inject block's, if any
        if self.opts.frontend not in ("fx", "auto"):  # candidates are FX graphs
            return cuvil.compile(gm, clone(inputs), options=self.options, hooks=hooks)
        # cuvil.compile minus the retrace, so that FX node names stay the model's
        module = lower(gm, clone(inputs), "fx", gm=gm, hooks=hooks)
        return compile_module(module, self.opts, hooks=hooks)


def _signature(e: BaseException) -> tuple[str, str]:
    """The class of a failure: the error type and its message without node names,
    value names and numbers (which change from one candidate to the next)."""
    msg = str(getattr(e, "message", None) or e)
    msg = re.sub(r"\s*\(FX node '[^']*'\)", "", msg)
    msg = re.sub(r"FX node '[^']*'", "FX node", msg)
    msg = re.sub(r"%[\w.]+", "%_", msg)
    msg = re.sub(r"\d+", "N", msg)
    return type(e).__name__, msg


# ---- the search -------------------------------------------------------------------------


class _Reducer:
    """The search over candidates: which sets of nodes to try, smallest first."""

    def __init__(self, tester: _Tester) -> None:
        self.tester, self.graph = tester, tester.graph
        self.kind: ReduceKind | None = None
        self.signature: tuple[str, str] | None = None
        self.best: frozenset | None = None  # the smallest interesting set so far

    def run(self, target_name: str | None) -> ReduceResult:
        if target_name is not None:
            return self._run_target(self.graph.node(target_name))
        start = frozenset(self.graph.compute)
        self._baseline(start, "the model")
        anchor = None
        if self.kind == ReduceKind.COMPILE_ERROR:  # start next to the node it names
            anchor = self.graph.named_in(self.tester.cache[start].detail)
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
        self.tester.target = target
        start = frozenset(self.graph.ancestors(target)) | {target}
        try:
            self.kind = ReduceKind.DIVERGES
            best = self._window(target, start)
            if best is None:
                self._baseline(start, f"the slice ending at '{target.name}'")
                best = self._window(target, start) or start
            best = self._ddmin(best, frozenset([target]))
        except _Budget:
            best = self._stopped()
        return self._result(best)

    def _baseline(self, start: frozenset, what: str) -> None:
        first = self.tester.check(start, force=True)
        oracle = self.tester.oracle
        tol = oracle.default
        if first.status == Outcome.OK:
            within = f"within rtol={tol.rtol:g}, atol={tol.atol:g}"
            if oracle.judge is not None:
                within = (
                    "no further from a float64 run than eager-float32 (times "
                    f"{oracle.judge.factor('f32'):g})"
                )
            raise CuvilError(
                f"{what} compiles and matches eager {within}: nothing to reduce"
            )
        if first.status == Outcome.INVALID:
            raise CuvilError(f"cannot reduce {what}: {first.detail}")
        self.kind = (
            ReduceKind.DIVERGES
            if first.status == Outcome.DIVERGES
            else ReduceKind.COMPILE_ERROR
        )
        self.signature = first.signature
        self.best = start
        self.tester.log(f"start: {len(start)} nodes, {self.kind}: {first.detail}")

    def _stopped(self) -> frozenset:
        max_checks = self.tester.max_checks
        self.tester.log(f"stopped after max_checks={max_checks} checks")
        if self.best is None:
            what = (
                "diverges" if self.kind == ReduceKind.DIVERGES else "fails to compile"
            )
            raise CuvilError(
                f"no subgraph that {what} was found within max_checks={max_checks}",
                hint="raise max_checks",
            )
        return self.best

    def _window(self, anchor: torch.fx.Node, start: frozenset) -> frozenset | None:
        """The anchor alone, then with its nearest 1, 2, 4 ... producers, up to the
        whole `start`; the first interesting one, or None."""
        preds = [p for p in self.graph.nearest_producers(anchor) if p in start]
        k = 0
        while True:
            kept = frozenset([anchor, *preds[:k]])
            if self._interesting(kept):
                return kept
            if k >= len(preds):
                return None
            k = min(len(preds), 1 if k == 0 else 2 * k)

    def _ddmin(self, best: frozenset, pinned: frozenset) -> frozenset:
        """ddmin over the unpinned nodes (in graph order): 1-minimal within
        max_checks; the pinned ones (the target) always stay."""
        items = sorted(best - pinned, key=self.graph.index.__getitem__)
        kept = ddmin(
            items,
            lambda subset: self._interesting(pinned | frozenset(subset)),
            try_none=bool(pinned),
        )
        return pinned | frozenset(kept)

    def _interesting(self, kept: frozenset) -> bool:
        out = self.tester.check(kept)
        if self.kind == ReduceKind.DIVERGES:
            ok = out.status == Outcome.DIVERGES
        else:
            ok = out.status == Outcome.ERROR and out.signature == self.signature
        if ok and (self.best is None or len(kept) < len(self.best)):
            self.best = kept
        return ok

    def _result(self, kept: frozenset) -> ReduceResult:
        kept = self.graph.close(kept)
        reduced = self.graph.build(kept, self.tester.target)
        gm = reduced.gm
        out = self.tester.cache[kept]
        gm.meta["reduce"] = {"kind": self.kind, "detail": out.detail}
        oracle = self.tester.oracle
        tol = oracle.default
        return ReduceResult(
            gm=gm,
            inputs=reduced.inputs,
            nodes=sum(n.op in CALLS for n in gm.graph.nodes),
            original_nodes=len(self.graph.compute),
            checks=self.tester.checks,
            kind=self.kind,
            detail=out.detail,
            rtol=tol.rtol,
            atol=tol.atol,
            judge=oracle.judge.describe() if oracle.judge is not None else None,
        )


def ddmin(items: list, interesting: Callable[[list], bool], try_none=False) -> list:
    """Zeller's ddmin: a 1-minimal sublist of `items` (itself interesting) that is
    still interesting: keep one chunk, else remove one chunk, else split finer.
    `try_none`: the empty list may do too (something outside `items` always stays)."""
    n = 2
    while len(items) >= 2 or (len(items) == 1 and try_none):
        if len(items) == 1:  # can the last free item go as well?
            if interesting([]):
                items = []
            break
        chunks = _split(items, min(n, len(items)))
        reduced = False
        for chunk in chunks:  # keep one chunk
            if interesting(chunk):
                items, n, reduced = chunk, 2, True
                break
        if not reduced and len(chunks) > 2:
            for chunk in chunks:  # remove one chunk
                rest = [x for x in items if x not in set(chunk)]
                if interesting(rest):
                    items, n, reduced = rest, max(n - 1, 2), True
                    break
        if not reduced:
            if n >= len(items):
                break
            n = min(len(items), 2 * n)
    return items


def _split(items: list, n: int) -> list[list]:
    size, extra = divmod(len(items), n)
    out, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        if end > start:
            out.append(items[start:end])
        start = end
    return out
