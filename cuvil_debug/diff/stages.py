"""Running one stage twice at once — propagated and isolated — and measuring every FX node.

A stage is a walk over IR ops (``ir``/``opt``: the reference interpreter's semantics;
``native``: the generated kernels, called one at a time through a `Stepper`). The walk
keeps two environments of live values:

* *propagated*: each op reads what the stage itself computed (what a user gets);
* *isolated*: after an op produces an FX node's value, that value is replaced by the eager
  one before anything reads it, so every node's ops see exact inputs and its isolated
  error is the error it adds by itself.

Values are compared as soon as they exist and dropped after their last use, so a stage
holds only its live values (twice), never all of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from cuvil.errors import CuvilError
from cuvil.hooks import CompileHooks
from cuvil.ir.core import Function, Module, Operation, Value
from cuvil.ir.interpreter import Interpreter, check_inputs
from cuvil.ir.ops import ConstantOp, ParamOp, ReshapeOp
from cuvil.ir.ops.fused import FusedOp, body_of

from .capture import Capture
from .mapping import StageMap
from .oracle import Oracle

__all__ = [
    "Recorder",
    "Meter",
    "NativeBuild",
    "Twin",
    "walk_ir",
    "walk_native",
    "inline_fused",
]

Tensors = tuple[torch.Tensor, ...]


class Recorder:
    """Compares values with eager as a stage produces them; gives the isolated walk the
    eager value to continue from."""

    def __init__(
        self,
        cap: Capture,
        smap: StageMap,
        oracle: Oracle,
        only: set[str] | None = None,
    ) -> None:
        self.cap, self.smap, self.oracle, self.only = cap, smap, oracle, only

    def record(
        self, v: Value, prop: torch.Tensor, iso: torch.Tensor
    ) -> torch.Tensor | None:
        """Measure `v` if it holds FX nodes' values; returns the eager replacement."""
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
            stats = self.cap.stats(n) if ref.is_floating_point() else None
            result.propagated = self.oracle.measure(prop, ref, stats)
            result.isolated = (
                result.propagated
                if iso is prop
                else self.oracle.measure(iso, ref, stats)
            )
        ref = self.cap.tensor(nodes[0])
        if ref is None or tuple(ref.shape) != tuple(v.type.shape):
            return None  # a static mismatch: keep the stage's own value
        return ref.to(v.type.dtype.torch)


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


def _same(a: Sequence[torch.Tensor], b: Sequence[torch.Tensor]) -> bool:
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


class _Walk:
    """The shared walk: `execute(op, args)` runs one non-fused op in the stage."""

    def __init__(
        self, module: Module, rec: Recorder, execute, on_fused=None, meter=None
    ) -> None:
        self.module, self.rec, self.execute = module, rec, execute
        self.on_fused = on_fused  # native: computes the fused kernel itself
        self.meter = meter or Meter()

    def function(
        self, fn: Function, prop: Sequence[torch.Tensor], iso: Sequence[torch.Tensor]
    ) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        env_p = {id(a): t for a, t in zip(fn.args, prop, strict=True)}
        env_i = {id(a): t for a, t in zip(fn.args, iso, strict=True)}
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
            saved, self.meter.outer = self.meter.outer, self.meter.outer + live
            try:
                p_out, i_out = self.op(op, ps, is_)
            finally:
                self.meter.outer = saved
            for r, p, q in zip(op.results, p_out, i_out, strict=True):
                sub = self.rec.record(r, p, q)
                env_p[id(r)] = p
                env_i[id(r)] = sub if sub is not None else q
            live = self.meter.observe((env_p, env_i), static)
            for v in last.get(i, ()):
                env_p.pop(id(v), None)
                env_i.pop(id(v), None)
        return [env_p[id(v)] for v in fn.outputs], [env_i[id(v)] for v in fn.outputs]

    def main(self, inputs: Sequence[torch.Tensor]) -> Tensors:
        """The module's main function on `inputs`; its propagated outputs. The
        isolated walk starts from the eager values of the inputs."""
        fn = self.module.main
        iso = [self.rec.record(a, x, x) for a, x in zip(fn.args, inputs)]
        iso = [q if q is not None else x for q, x in zip(iso, inputs)]
        out, _ = self.function(fn, list(inputs), iso)
        return tuple(out)

    def op(self, op: Operation, ps, is_) -> tuple[Tensors, Tensors]:
        if isinstance(op, FusedOp) and self.on_fused is None:
            body = body_of(self.module, op)
            p_out, i_out = self.function(body, ps, is_)
            return tuple(p_out), tuple(i_out)
        if isinstance(op, FusedOp):
            return self.on_fused(op, ps, is_)
        p_out = self.execute(op, ps)
        i_out = p_out if _same(ps, is_) else self.execute(op, is_)
        return p_out, i_out


def walk_ir(
    module: Module,
    inputs: Sequence[torch.Tensor],
    rec: Recorder,
    meter: Meter | None = None,
) -> Tensors:
    """Run `module` with the reference interpreter, fused bodies expanded (so every member
    of a fused group is measured); returns the propagated outputs."""
    _check_inputs(module.main, inputs)
    return _Walk(module, rec, Interpreter(module).execute, meter=meter).main(inputs)


def _check_inputs(fn: Function, inputs: Sequence[torch.Tensor]) -> None:
    check_inputs([(a.name, a.type) for a in fn.args], inputs, f"@{fn.name}")


# ---- native ----------------------------------------------------------------------------------
def _static_root(v: Value) -> bool:
    """A value whose buffer is a param or constant (never written by the diff)."""
    while isinstance(v.owner, ReshapeOp):
        v = v.owner.operands[0]
    return isinstance(v.owner, ParamOp | ConstantOp)


class _Native:
    """Runs ops of one stepper's module: param/constant/reshape in Python (they are no
    kernel), everything else by writing the operands into their buffers and calling the
    op's kernel alone."""

    def __init__(self, stepper, module: Module) -> None:
        self.stepper = stepper
        self.interp = Interpreter(module)
        self.step_of = {id(s.op): s for s in stepper.steps if s.op is not None}

    def __call__(self, op: Operation, args: Sequence[torch.Tensor]) -> Tensors:
        if isinstance(op, ParamOp | ConstantOp | ReshapeOp):
            return self.interp.execute(op, args)
        step = self.step_of.get(id(op))
        if step is None:
            raise CuvilError(
                f"no kernel call found for '{op.name}' ({op.loc.describe()})"
            )
        st = self.stepper
        for v, t in zip(step.operands, args, strict=True):
            if not _static_root(v):
                st.write(v, t)
        st.step(step.index)
        return tuple(st.read(r) for r in step.results)


@dataclass
class Twin:
    """The unfused twin of a build (`inline_fused`): its stepper, the inlined module,
    and per fused op its members (a Function view, inlined value -> body value)."""

    stepper: Any
    module: Module
    members: dict[int, tuple[Function, dict]]


@dataclass
class NativeBuild:
    """The steppable build of a module (the normal build plus one entry per kernel
    call) and, when it has fused kernels, its unfused twin; LLVM optimizes both in
    background child processes until `wait`."""

    module: Module
    stepper: Any
    twin: Twin | None = None

    @staticmethod
    def start(
        module: Module,
        opt_level: str,
        num_threads: int,
        members: bool = True,
        hooks: CompileHooks | None = None,
        break_on: tuple[str, ...] = (),
    ) -> NativeBuild:
        """Start the builds (`members`: with the twin, when there are fused ops;
        `hooks`: the compile's ``after_kernel`` seam, in both builds; `break_on`:
        debugger traps, in the build being diffed only)."""
        from cuvil.runtime.stepper import Stepper

        stepper = Stepper(
            module,
            opt_level,
            num_threads,
            background=True,
            hooks=hooks,
            break_on=break_on,
        )
        twin = None
        if members and any(op.name == "cuvil.fused" for op in module.main.ops):
            t_module, fused = inline_fused(module)
            level = _twin_level(opt_level)
            t_stepper = Stepper(
                t_module, level, num_threads, background=True, hooks=hooks
            )
            twin = Twin(t_stepper, t_module, fused)
        return NativeBuild(module, stepper, twin)

    def wait(self) -> None:
        """Until LLVM is done with both builds."""
        self.stepper.jit  # noqa: B018
        if self.twin:
            self.twin.stepper.jit  # noqa: B018

    @property
    def arena_bytes(self) -> int:
        twin = self.twin.stepper.program.arena_bytes if self.twin else 0
        return self.stepper.program.arena_bytes + twin

    def symbols(self) -> dict[int, str]:
        """id(op) -> the symbol of the kernel that computes it."""
        program = self.stepper.program
        kernels = {k.call_index: k.symbol for k in program.kernels}
        return {
            id(s.op): kernels.get(s.index, s.symbol)
            for s in self.stepper.steps
            if s.op is not None
        }


def _twin_level(opt_level: str) -> str:
    """The unfused twin only recomputes fused members: LLVM's O1 gives the same numbers
    (no fast-math anywhere) and compiles its many small kernels 2-3x faster than O3."""
    return "O1" if opt_level in ("O2", "O3") else opt_level


def walk_native(
    build: NativeBuild, inputs: Sequence[torch.Tensor], rec: Recorder, meter: Meter
) -> Tensors:
    """Run the build's native code kernel by kernel (both modes). With a twin, the
    members of each fused kernel are recomputed from the kernel's inputs by the
    unfused build, so values inside fused kernels are measured too; the fused
    kernel's own output is measured first."""
    module, twin = build.module, build.twin
    _check_inputs(module.main, inputs)
    build.stepper.bind(*inputs)
    run = _Native(build.stepper, module)

    def kernel_only(op: FusedOp, ps, is_):  # the fused kernel's output, no members
        p_out = run(op, ps)
        return p_out, (p_out if _same(ps, is_) else run(op, is_))

    on_fused = kernel_only
    if twin is not None:
        twin.stepper.bind(*inputs)
        t_run = _Native(twin.stepper, twin.module)

        def on_fused(op: FusedOp, ps, is_):
            p_out = run(op, ps)
            i_out = p_out if _same(ps, is_) else run(op, is_)
            for r, p, q in zip(op.results, p_out, i_out, strict=True):
                rec.record(r, p, q)  # the kernel's output first: it is the real value
            body, origin = twin.members[id(op)]
            sub = _Walk(twin.module, _Renamed(rec, origin), t_run, meter=walk.meter)
            sub.function(body, ps, is_)
            return p_out, i_out

    walk = _Walk(module, rec, run, on_fused, meter)
    return walk.main(inputs)


class _Renamed:
    """A recorder for the twin's values: records them as the original body values."""

    def __init__(self, rec: Recorder, origin: dict[int, Value]) -> None:
        self.rec, self.origin = rec, origin

    def record(self, v: Value, prop, iso):
        original = self.origin.get(id(v))
        return None if original is None else self.rec.record(original, prop, iso)


def inline_fused(module: Module) -> tuple[Module, dict[int, tuple[Function, dict]]]:
    """A copy of `module` with every ``cuvil.fused`` op replaced by its body's ops (the
    unfused build used to recompute fused members natively).

    Returns the copy and, per fused op (by id), a Function view of its inlined members
    (args: the copies of the fused op's operands' values; ops: the inlined body ops) and
    a map from each inlined value (by id) to the body value it copies.
    """
    twin = Module(module.name)
    twin.params = dict(module.params)
    twin.param_data = dict(module.param_data)
    twin.output_spec = module.output_spec
    main = module.main
    fn = twin.add_function(Function(main.name))
    vmap: dict[int, Value] = {}
    for a, loc in zip(main.args, main.arg_locs):
        vmap[id(a)] = fn.add_arg(a.type, a.name, loc)
    members: dict[int, tuple[Function, dict]] = {}
    for op in main.ops:
        if not isinstance(op, FusedOp):
            fn.append(op.clone(vmap))
            continue
        body = body_of(module, op)
        view = Function(body.name, [vmap[id(v)] for v in op.operands])
        inner = dict(vmap)
        for arg, outer in zip(body.args, op.operands, strict=True):
            inner[id(arg)] = vmap[id(outer)]
        origin: dict[int, Value] = {}
        for bop in body.ops:
            new = fn.append(bop.clone(inner))
            view.ops.append(new)
            for r, nr in zip(bop.results, new.results):
                origin[id(nr)] = r
        view.set_outputs([inner[id(v)] for v in body.outputs])
        for r, v in zip(op.results, body.outputs, strict=True):
            vmap[id(r)] = inner[id(v)]
        members[id(op)] = (view, origin)
    fn.set_outputs([vmap[id(v)] for v in main.outputs])
    return twin, members
