"""The native stage: the optimized module's normal build, called kernel by kernel, and
the members of fused kernels recomputed natively by a *twin* build.

A fused kernel computes its members in registers; they never exist in memory. The twin
is a small module of the fused groups' bodies (their ops inlined, their operands its
arguments, params and constants its own), compiled apart; at each such fused kernel the
walk feeds the kernel's own inputs to the twin's member kernels. Which groups
(``members``):

* ``auto`` (default): only the groups whose kernel output is worse than eager (either
  mode). Their inputs are kept during the walk; after it the twin of just those groups
  is built and their members measured. A clean model builds no twin at all.
* ``all``: every group, the twin built up front in the background (LLVM optimizes it in
  a child process while the other stages run), members measured during the walk.
* ``none``: no member is measured natively (``--no-members``).

The twin is compiled at LLVM O1 when the build checked is O2/O3: Cuvil emits no
fast-math flags, so the optimizer cannot change a correct kernel's numbers, and O1
compiles many small kernels 2-3x faster. A kernel fault is applied to the twin only when
the node it names is in it (`NativeBuild.twin_hooks`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from cuvil.codegen.buffers import moves_nothing
from cuvil.errors import CuvilError
from cuvil.hooks import CompileHooks
from cuvil.ir.core import Function, Module, Operation, Value
from cuvil.ir.interpreter import Interpreter
from cuvil.ir.ops import ConstantOp, ParamOp, RelayoutOp, ReshapeOp
from cuvil.ir.ops.fused import FusedOp, body_of
from cuvil.ir.types import TensorType

from .stages import Meter, Recorder, Tensors, Walk, check_main_inputs, same

__all__ = ["MEMBERS", "NativeBuild", "Twin", "walk_native", "twin_of"]

MEMBERS = ("auto", "all", "none")


def _static_root(v: Value) -> bool:
    """A value whose buffer is a param or constant (never written by the diff)."""
    while isinstance(v.owner, ReshapeOp) or moves_nothing(v.owner):
        v = v.owner.operands[0]
    return isinstance(v.owner, ParamOp | ConstantOp)


class _Native:
    """Runs ops of one stepper's module: param/constant/reshape (and a relayout that
    moves no byte) in Python (they are no kernel), everything else by writing the operands into their buffers and calling the
    op's kernel alone."""

    def __init__(self, stepper, module: Module) -> None:
        self.stepper = stepper
        self.interp = Interpreter(module)
        self.step_of = {id(s.op): s for s in stepper.steps if s.op is not None}

    def __call__(self, op: Operation, args: Sequence[torch.Tensor]) -> Tensors:
        if isinstance(op, ParamOp | ConstantOp | ReshapeOp) or moves_nothing(op):
            return self.interp.execute(op, args)  # no kernel: a view, or no code
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
    """A twin build: its stepper, its module, and per fused op (by id) its members
    (a Function view over the twin's ops, twin value -> body value)."""

    stepper: Any
    module: Module
    members: dict[int, tuple[Function, dict]]


@dataclass
class NativeBuild:
    """The steppable build of a module (the normal build plus one entry per kernel
    call; LLVM optimizes it in a background child process until `wait`) and the twin
    of its fused groups (see the module docstring)."""

    module: Module
    stepper: Any
    opt_level: str = "O3"
    num_threads: int = 1
    members: str = "auto"
    twin: Twin | None = None
    # kernel faults for a twin holding these FX nodes (None: no faults)
    twin_hooks: Callable[[set[str]], CompileHooks | None] = field(
        default=lambda nodes: None
    )
    twins: int = 0  # twin builds made (0 for a clean model with members "auto")
    twin_seconds: float = 0.0  # spent building twins during the walk (lazily)
    _made: dict[frozenset, Twin] = field(default_factory=dict)  # by the groups' ids

    @staticmethod
    def start(
        module: Module,
        opt_level: str,
        num_threads: int,
        members: str = "auto",
        hooks: CompileHooks | None = None,
        break_on: tuple[str, ...] = (),
        twin_hooks: Callable[[set[str]], CompileHooks | None] | None = None,
    ) -> NativeBuild:
        """Start the build (`hooks`: the compile's ``after_kernel`` seam; `break_on`:
        debugger traps, in the build being diffed only) and, for members ``all``, the
        twin of every fused group."""
        from cuvil.runtime.stepper import Stepper

        stepper = Stepper(
            module,
            opt_level,
            num_threads,
            background=True,
            hooks=hooks,
            break_on=break_on,
        )
        build = NativeBuild(module, stepper, opt_level, num_threads, members)
        if twin_hooks is not None:
            build.twin_hooks = twin_hooks
        fused = [op for op in module.main.ops if isinstance(op, FusedOp)]
        if members == "all" and fused:
            build.twin = build.twin_for(fused, background=True)
        return build

    def twin_for(self, fused: Sequence[FusedOp], background: bool = False) -> Twin:
        """The twin of the groups `fused` (built now, or started in the background;
        the same groups again: the same twin)."""
        from cuvil.runtime.stepper import Stepper

        key = frozenset(id(op) for op in fused)
        if key in self._made:
            return self._made[key]
        t_module, members = twin_of(self.module, fused)
        nodes = {n for op in t_module.main.ops for n in op.loc.nodes}
        stepper = Stepper(
            t_module,
            _twin_level(self.opt_level),
            self.num_threads,
            background=background,
            hooks=self.twin_hooks(nodes),
        )
        self.twins += 1
        self._made[key] = Twin(stepper, t_module, members)
        return self._made[key]

    def wait(self) -> None:
        """Until LLVM is done with the builds started."""
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
    """The twin only recomputes fused members: LLVM's O1 gives the same numbers
    (no fast-math anywhere) and compiles its many small kernels 2-3x faster than O3."""
    return "O1" if opt_level in ("O2", "O3") else opt_level


@dataclass
class _Pending:
    """A fused kernel whose members are to be measured after the walk."""

    op: FusedOp
    ps: list[torch.Tensor]
    is_: list[torch.Tensor]
    spans: list[frozenset]


def walk_native(
    build: NativeBuild, inputs: Sequence[torch.Tensor], rec: Recorder, meter: Meter
) -> Tensors:
    """Run the build's native code kernel by kernel (both modes). The fused kernel's
    own output is measured first (it is the real value); its members then by the twin
    (during the walk with a twin built up front; else after it, for the groups whose
    output is worse than eager)."""
    module = build.module
    check_main_inputs(module.main, inputs)
    build.stepper.bind(*inputs)
    run = _Native(build.stepper, module)
    pending: list[_Pending] = []
    twin = build.twin
    t_run = _bound(twin) if twin is not None else None

    def on_fused(op: FusedOp, ps, is_, span, spans):
        p_out = run(op, ps)
        i_out = p_out if same(ps, is_) else run(op, is_)
        for r, p, q in zip(op.results, p_out, i_out, strict=True):
            rec.record(r, p, q, span)  # the kernel's output first: it is the real value
        if t_run is not None:
            _members(twin, t_run, op, ps, is_, spans, rec, walk.meter)
        elif build.members == "auto" and any(rec.diverges(r) for r in op.results):
            pending.append(_Pending(op, list(ps), list(is_), list(spans)))
        return p_out, i_out

    walk = Walk(module, rec, run, on_fused, meter)
    outs = walk.main(inputs)
    if pending:
        start = time.perf_counter()
        lazy = build.twin_for([p.op for p in pending])
        t_lazy = _bound(lazy)  # waits for LLVM
        build.twin_seconds += time.perf_counter() - start
        for p in pending:
            _members(lazy, t_lazy, p.op, p.ps, p.is_, p.spans, rec, meter)
    return outs


def _bound(twin: Twin) -> _Native:
    """The twin's stepper bound (its arguments are written before each kernel)."""
    args = [
        torch.zeros(a.type.shape, dtype=a.type.dtype.torch)
        for a in twin.module.main.args
    ]
    twin.stepper.bind(*args)
    return _Native(twin.stepper, twin.module)


def _members(twin: Twin, t_run, op, ps, is_, spans, rec: Recorder, meter) -> None:
    body, origin = twin.members[id(op)]
    sub = Walk(twin.module, _Renamed(rec, origin), t_run, meter=meter)
    sub.function(body, ps, is_, spans)


class _Renamed:
    """A recorder for the twin's values: records them as the original body values."""

    def __init__(self, rec: Recorder, origin: dict[int, Value]) -> None:
        self.rec, self.origin = rec, origin

    def record(self, v: Value, prop, iso, span=frozenset()):
        original = self.origin.get(id(v))
        return None if original is None else self.rec.record(original, prop, iso, span)


def twin_of(
    module: Module, fused: Sequence[FusedOp]
) -> tuple[Module, dict[int, tuple[Function, dict]]]:
    """A module computing the bodies of the fused ops `fused` (of `module`'s main), each
    body's ops inlined: their operands are its arguments, unless they are params or
    constants (or reshapes of them), which it holds itself.

    Returns it and, per fused op (by id), a Function view of its inlined members (args:
    the values standing for the fused op's operands; ops: the inlined body ops) and a
    map from each inlined value (by id) to the body value it copies."""
    twin = Module(module.name)
    twin.params = dict(module.params)
    twin.param_data = dict(module.param_data)
    fn = twin.add_function(Function(module.main.name))
    vmap: dict[int, Value] = {}

    def bring(v: Value) -> Value:
        if id(v) not in vmap:
            if v.owner is not None and _static_root(v):
                for o in v.owner.operands:
                    bring(o)
                fn.append(v.owner.clone(vmap))
            else:
                vmap[id(v)] = _argument(fn, v)
        return vmap[id(v)]

    members: dict[int, tuple[Function, dict]] = {}
    outputs: list[Value] = []
    for op in fused:
        body = body_of(module, op)
        view = Function(body.name, [bring(v) for v in op.operands])
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
        outputs += [v for v in view.outputs if v not in outputs]
        members[id(op)] = (view, origin)
    fn.set_outputs([_contiguous(fn, v) for v in outputs])
    return twin, members


def _argument(fn: Function, v: Value) -> Value:
    """An argument standing for `v` (arguments are contiguous: one in another layout
    is relayouted; the walk writes `v`'s value into the relayout's buffer)."""
    t = v.type
    if t.layout == "contiguous":
        return fn.add_arg(t, v.name)
    arg = fn.add_arg(TensorType(t.shape, t.dtype), v.name)
    return fn.append(RelayoutOp.build(arg, layout=t.layout, name=v.name)).result


def _contiguous(fn: Function, v: Value) -> Value:
    """`v`, or a contiguous copy of it (outputs are contiguous)."""
    if v.type.layout == "contiguous":
        return v
    return fn.append(RelayoutOp.build(v, layout="contiguous")).result
