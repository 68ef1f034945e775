"""Running one stage twice at once — propagated and isolated — and measuring every FX node.

A stage is a walk over IR ops (``ir``/``opt``: the reference interpreter's semantics;
``native``: the generated kernels, called one at a time through a `Stepper`, native.py).
The walk keeps two environments of live values:

* *propagated*: each op reads what the stage itself computed (what a user gets);
* *isolated*: after an op produces an FX node's value, that value is replaced by the eager
  one before anything reads it, so every node's ops see exact inputs and its isolated
  error is the error it adds by itself.

The isolated walk also keeps each value's *span*: the FX nodes computed since the last
eager replacement (the nodes of the ops that led to it: one node, or a fused kernel's
members, or a convolution folded into its batch norm). The float64 judge compares an
isolated value with the truth of exactly that span (truth.py).

Values are compared as soon as they exist and dropped after their last use, so a stage
holds only its live values (twice), never all of them.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from cuvil.ir.core import Function, Module, Operation, Value
from cuvil.ir.interpreter import Interpreter, check_inputs
from cuvil.ir.ops import ConstantOp, ParamOp
from cuvil.ir.ops.fused import FusedOp, body_of

from .capture import Capture
from .mapping import StageMap
from .oracle import Oracle

__all__ = ["Recorder", "Meter", "Walk", "walk_ir", "check_main_inputs", "same"]

Tensors = tuple[torch.Tensor, ...]
Span = frozenset[str]
NOTHING: Span = frozenset()


class Recorder:
    """Compares values with eager as a stage produces them; gives the isolated walk the
    eager value to continue from."""

    def __init__(
        self,
        cap: Capture,
        smap: StageMap,
        oracle: Oracle,
        only: set[str] | None = None,
        twin=None,
    ) -> None:
        self.cap, self.smap, self.oracle, self.only = cap, smap, oracle, only
        self.twin = twin  # truth.Twin: the float64 truths (None: tolerances only)

    def record(
        self, v: Value, prop: torch.Tensor, iso: torch.Tensor, span: Span = NOTHING
    ) -> torch.Tensor | None:
        """Measure `v` if it holds FX nodes' values (`span`: the nodes its isolated
        value was computed over); returns the eager replacement."""
        nodes = self.smap.nodes_of(v)
        if not nodes:
            return None
        for n in nodes:
            result = self.smap.results[n]
            ref = self.cap.tensor(n)
            if result.propagated is not None or ref is None:
                continue  # the first producer (a real buffer before a recomputation) wins
            if self.only is not None and n not in self.only:
                continue
            self._measure(n, result, ref, prop, iso, span)
        ref = self.cap.tensor(nodes[0])
        if ref is None or tuple(ref.shape) != tuple(v.type.shape):
            return None  # a static mismatch: keep the stage's own value
        return ref.to(v.type.dtype.torch)

    def _measure(self, n: str, result, ref, prop, iso, span: Span) -> None:
        stats = self.cap.stats(n) if ref.is_floating_point() else None
        twin = self.twin if ref.is_floating_point() else None
        truth = twin.propagated_in(n, span) if twin is not None else None
        result.propagated = self.oracle.measure(prop, ref, stats, truth)
        if iso is prop and twin is None:
            result.isolated = result.propagated
            return
        truth = twin.isolated(n, span) if twin is not None else None
        result.isolated = self.oracle.measure(iso, ref, stats, truth)

    def diverges(self, v: Value) -> bool:
        """Some FX node `v` holds was measured and is not ok (either mode)."""
        for n in self.smap.nodes_of(v):
            r = self.smap.results[n]
            if any(m is not None and not m.ok for m in (r.propagated, r.isolated)):
                return True
        return False


def _last_uses(fn: Function) -> dict[int, list[Value]]:
    keep = {id(v) for v in fn.outputs}
    last: dict[int, tuple[int, Value]] = {}
    for i, op in enumerate(fn.ops):
        for v in op.operands:
            last[id(v)] = (i, v)
    out: dict[int, list[Value]] = {}
    for key, (i, v) in last.items():
        if key not in keep:
            out.setdefault(i, []).append(v)
    return out


def same(a: Sequence[torch.Tensor], b: Sequence[torch.Tensor]) -> bool:
    return all(x is y for x, y in zip(a, b, strict=True))


class Meter:
    """The most bytes of stage values (both modes) alive at once during walks; params
    and constants (the model's own) and eager values (the isolated mode continues from
    them without copying) are not counted."""

    def __init__(self, shared: set[int] = frozenset()) -> None:
        self.peak = 0
        self.outer = 0  # bytes held by enclosing walks (a fused body inside main)
        self.shared = shared  # data_ptrs of tensors counted elsewhere (eager values)

    def observe(self, envs: Sequence[dict], static: set[int]) -> int:
        seen: dict[int, int] = {}
        for env in envs:
            for key, t in env.items():
                if key not in static and t.data_ptr() not in self.shared:
                    seen[t.data_ptr()] = t.untyped_storage().nbytes()
        live = sum(seen.values())
        self.peak = max(self.peak, self.outer + live)
        return live


class Walk:
    """The shared walk: `execute(op, args)` runs one non-fused op in the stage;
    `on_fused(op, ps, is_, span, spans)` a fused one (native: its kernel)."""

    def __init__(
        self, module: Module, rec: Recorder, execute, on_fused=None, meter=None
    ) -> None:
        self.module, self.rec, self.execute = module, rec, execute
        self.on_fused = on_fused  # native: computes the fused kernel itself
        self.meter = meter or Meter()

    def function(
        self,
        fn: Function,
        prop: Sequence[torch.Tensor],
        iso: Sequence[torch.Tensor],
        spans: Sequence[Span] | None = None,
    ) -> tuple[list[torch.Tensor], list[torch.Tensor], list[Span]]:
        """Run `fn` on `prop` / `iso` (`spans`: the isolated args' spans); its outputs
        in both modes and the spans of the isolated ones."""
        env_p = {id(a): t for a, t in zip(fn.args, prop, strict=True)}
        env_i = {id(a): t for a, t in zip(fn.args, iso, strict=True)}
        env_s = {id(a): s for a, s in zip(fn.args, spans or ()) if s}
        last = _last_uses(fn)
        static = {
            id(r)
            for op in fn.ops
            if isinstance(op, ParamOp | ConstantOp)
            for r in op.results
        }
        live = 0
        for i, op in enumerate(fn.ops):
            ps = [env_p[id(v)] for v in op.operands]
            is_ = [env_i[id(v)] for v in op.operands]
            spans_in = [env_s.get(id(v), NOTHING) for v in op.operands]
            saved, self.meter.outer = self.meter.outer, self.meter.outer + live
            try:
                p_out, i_out, s_out = self.op(op, ps, is_, spans_in)
            finally:
                self.meter.outer = saved
            for r, p, q, span in zip(op.results, p_out, i_out, s_out, strict=True):
                sub = self.rec.record(r, p, q, span)
                env_p[id(r)] = p
                env_i[id(r)] = sub if sub is not None else q
                if sub is None and span:
                    env_s[id(r)] = span
            live = self.meter.observe((env_p, env_i), static)
            for v in last.get(i, ()):
                env_p.pop(id(v), None)
                env_i.pop(id(v), None)
                env_s.pop(id(v), None)
        outs = fn.outputs
        return (
            [env_p[id(v)] for v in outs],
            [env_i[id(v)] for v in outs],
            [env_s.get(id(v), NOTHING) for v in outs],
        )

    def main(self, inputs: Sequence[torch.Tensor]) -> Tensors:
        """The module's main function on `inputs`; its propagated outputs. The
        isolated walk starts from the eager values of the inputs."""
        fn = self.module.main
        iso = [self.rec.record(a, x, x) for a, x in zip(fn.args, inputs)]
        iso = [q if q is not None else x for q, x in zip(iso, inputs)]
        out, _, _ = self.function(fn, list(inputs), iso)
        return tuple(out)

    def op(self, op: Operation, ps, is_, spans) -> tuple[Tensors, Tensors, list]:
        """One op in both modes: its results and their isolated spans (a fused body
        walked here gives its own; otherwise the op's nodes and its inputs'; none for
        an op of no operand: a constant or param computes nothing from the inputs, and
        one constant shared by many nodes, CSE's, names them all)."""
        span = frozenset(op.loc.nodes).union(*spans) if op.operands else NOTHING
        if isinstance(op, FusedOp) and self.on_fused is None:
            body = body_of(self.module, op)
            return self.function(body, ps, is_, spans)
        if isinstance(op, FusedOp):
            p_out, i_out = self.on_fused(op, ps, is_, span, spans)
        else:
            p_out = self.execute(op, ps)
            i_out = p_out if same(ps, is_) else self.execute(op, is_)
        return p_out, i_out, [span] * len(op.results)


def walk_ir(
    module: Module,
    inputs: Sequence[torch.Tensor],
    rec: Recorder,
    meter: Meter | None = None,
) -> Tensors:
    """Run `module` with the reference interpreter, fused bodies expanded (so every member
    of a fused group is measured); returns the propagated outputs."""
    check_main_inputs(module.main, inputs)
    return Walk(module, rec, Interpreter(module).execute, meter=meter).main(inputs)


def check_main_inputs(fn: Function, inputs: Sequence[torch.Tensor]) -> None:
    check_inputs([(a.name, a.type) for a in fn.args], inputs, f"@{fn.name}")
