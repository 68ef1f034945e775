"""Documented fault injection: deliberately wrong lowerings, passes and kernels.

``cuvil-debug diff`` names the FX node, the stage and the pass that broke a value. To test
it (and to see it work on a real model), inject a known bug at one stage::

    from cuvil import faults

    with faults.inject(faults.parse("kernel:fc"), faults.Fault("pass", "relu", "shift")):
        compiled = cuvil.compile(model, inputs)  # fc's kernel and relu's IR are wrong

Stages (docs/FAULTS.md):

- ``lowering``: the frontend passes the value it lowered for the FX node through the effect,
  built from IR ops located at the node (the IR *before* passes is already wrong).
- ``pass``: the registered pass ``inject-fault{node=N,effect=E}`` inserts the effect after
  the op computing node N (one action, so ``bisect_limit`` finds it); while a pass fault is
  injected the default pipelines run it right after ``fold-constants``.
- ``kernel``: code generation appends an in-place loop applying the effect to the output
  buffer of the kernel computing the node (the IR is right, the native code is not).

Faults are process-wide state (not thread-safe) and apply only inside ``inject``; each
stage's hook costs one attribute test when none is active. What was applied to a module is
``applied(module)`` (a list of ``Injection``).
"""

from __future__ import annotations

import contextlib
import difflib
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch
from llvmlite import ir

from .errors import CodegenError, CuvilError, FrontendError, PassError
from .ir import ops
from .ir.core import Function, Module, Operation, Trait, Value
from .ir.location import AnyLoc
from .ir.types import TensorType
from .passes import pipeline as _pipeline
from .passes.base import ModulePass, PassContext, main_functions
from .passes.registry import register_pass

if TYPE_CHECKING:
    from .codegen.kernel import Kernel

__all__ = [
    "EFFECTS",
    "STAGES",
    "Fault",
    "Injection",
    "InjectFaultPass",
    "find_op",
    "parse",
    "inject",
    "active",
    "applied",
]

EFFECTS: dict[str, str] = {
    "scale": "y * 1.0625",
    "negative": "negative entries of y doubled (hidden by a following ReLU)",
    "shift": "y + 0.5 (hidden by a following softmax)",
    "overflow": "y + 1.0 only after LLVM's optimizer (a folded signed-overflow compare)",
}
STAGES: dict[str, str] = {
    "lowering": "wrong frontend lowering",
    "pass": "wrong pass (inject-fault)",
    "kernel": "wrong kernel",
}
KERNEL_ONLY = frozenset({"overflow"})
SCALE, SHIFT, NEGATIVE_SLOPE = 1.0625, 0.5, 2.0  # all exact in f16/bf16 too
INT32_MAX = 2**31 - 1

# The faults inside `inject` blocks, outermost first. The stage hooks test this tuple.
ACTIVE: tuple[Fault, ...] = ()


def _choice(what: str, got: str, known) -> CuvilError:
    close = difflib.get_close_matches(got, list(known), n=1)
    did = f"did you mean '{close[0]}'? " if close else ""
    return CuvilError(
        f"unknown fault {what} '{got}'",
        hint=f"{did}{what}s: {', '.join(known)}; a fault is STAGE:NODE[:EFFECT], "
        "e.g. kernel:fc or pass:relu:negative (docs/FAULTS.md)",
    )


@dataclass(frozen=True)
class Fault:
    """A bug to inject: at `stage`, the value of FX node `node` becomes `effect`(value)."""

    stage: str  # "lowering" | "pass" | "kernel"
    node: str  # the FX node whose value becomes wrong, e.g. "layer1_0_relu", "fc"
    effect: str = "scale"

    def __post_init__(self) -> None:
        if self.stage not in STAGES:
            raise _choice("stage", str(self.stage), STAGES)
        if not isinstance(self.node, str) or not self.node.strip():
            raise CuvilError(
                f"fault {self.stage}:{self.node!r} names no FX node",
                hint="write STAGE:NODE[:EFFECT], e.g. kernel:fc",
            )
        if self.effect not in EFFECTS:
            raise _choice("effect", str(self.effect), EFFECTS)
        if self.effect in KERNEL_ONLY and self.stage != "kernel":
            raise CuvilError(
                f"effect '{self.effect}' is kernel-only (it lives in LLVM IR), "
                f"not for stage '{self.stage}'",
                hint=f"write kernel:{self.node}:{self.effect}",
            )

    @property
    def spec(self) -> str:
        """``STAGE:NODE:EFFECT``, the text `parse` reads back."""
        return f"{self.stage}:{self.node}:{self.effect}"

    def describe(self) -> str:
        """e.g. ``wrong kernel for FX node 'fc' (scale: y * 1.0625)``."""
        return (
            f"{STAGES[self.stage]} for FX node '{self.node}' "
            f"({self.effect}: {EFFECTS[self.effect]})"
        )

    def __str__(self) -> str:
        return self.spec


@dataclass(frozen=True)
class Injection:
    """Where a fault was applied: the op (or kernel symbol) and the value made wrong."""

    fault: Fault
    at: str  # e.g. "cuvil.linear", "kernel cuvil_k3_fc"
    value: str  # the name of the IR value (kernel output) that is now wrong


def parse(spec: str) -> Fault:
    """A Fault from ``STAGE:NODE[:EFFECT]`` (e.g. ``kernel:fc``, ``pass:relu:negative``)."""
    if not isinstance(spec, str):
        raise CuvilError(f"a fault spec is a string, got {type(spec).__name__}")
    parts = [p.strip() for p in spec.strip().split(":")]
    if len(parts) not in (2, 3) or not all(parts):
        raise CuvilError(
            f"cannot parse fault spec {spec!r}",
            hint="write STAGE:NODE[:EFFECT] with STAGE one of "
            f"{', '.join(STAGES)} and EFFECT one of {', '.join(EFFECTS)} "
            "(default scale), e.g. kernel:fc or pass:layer1_0_relu:negative",
        )
    return Fault(*parts)


def active() -> tuple[Fault, ...]:
    """The faults injected now (innermost `inject` last)."""
    return ACTIVE


def _pipeline_item(fault: Fault) -> tuple[str, str]:
    return (
        "fold-constants",
        f"inject-fault{{node={fault.node},effect={fault.effect}}}",
    )


@contextlib.contextmanager
def inject(*faults: Fault | str) -> Iterator[tuple[Fault, ...]]:
    """Inject `faults` (Faults or spec strings) for the code compiled inside the block.

    Nestable; everything is restored on exit, also when the block raises. Objects compiled
    inside stay wrong: the faults are in their code.
    """
    global ACTIVE
    added = tuple(f if isinstance(f, Fault) else parse(f) for f in faults)
    saved = ACTIVE
    extras = [_pipeline_item(f) for f in added if f.stage == "pass"]
    ACTIVE = saved + added
    _pipeline.DEFAULT_EXTRAS.extend(extras)
    try:
        yield added
    finally:
        ACTIVE = saved
        for item in extras:
            with contextlib.suppress(ValueError):
                _pipeline.DEFAULT_EXTRAS.remove(item)


def _listing(names: list[str], limit: int = 16) -> str:
    """At most `limit` names, comma separated (ResNet-18 has hundreds of FX nodes)."""
    if not names:
        return "none"
    more = f", ... ({len(names) - limit} more)" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


# what each module got, kept here rather than on the module (the IR knows no faults)
_APPLIED: weakref.WeakKeyDictionary[Module, list[Injection]] = (
    weakref.WeakKeyDictionary()
)


def applied(module: Module) -> list[Injection]:
    """The faults applied to `module` (lowering, pass and kernel stages), in order."""
    return list(_APPLIED.get(module, ()))


def _record(module: Module, fault: Fault, at: str, value: str) -> None:
    _APPLIED.setdefault(module, []).append(Injection(fault, at, value))


def _node_loc(loc: AnyLoc, node: str) -> AnyLoc:
    """The part of `loc` that names `node` (a fused op's member), else `loc`."""
    return next((p for p in loc.parts if p.node == node), loc)


def _effect_ops(effect: str, x: Value, loc: AnyLoc, name: str) -> list[Operation]:
    """IR ops computing effect(x); the last one's result is named `name`."""
    if effect == "negative":  # x >= 0 ? x : 2x, as one op (a valid GEMM epilogue too)
        return [
            ops.LeakyReluOp.build(x, loc=loc, name=name, negative_slope=NEGATIVE_SLOPE)
        ]
    factor = SCALE if effect == "scale" else SHIFT
    op_cls = ops.BINARY_OPS["cuvil.mul" if effect == "scale" else "cuvil.add"]
    c = ops.ConstantOp.build(
        value=torch.tensor(factor, dtype=x.type.dtype.torch), loc=loc
    )
    return [c, op_cls.build(x, c.result, loc=loc, name=name)]


def _float_or_fail(t: TensorType, fault: Fault, error=CuvilError) -> None:
    if not t.dtype.is_float:
        raise error(
            f"cannot inject fault {fault.spec}: FX node '{fault.node}' produces {t}; "
            "the effects need a float tensor",
            hint="fault a node with a float result",
        )


# ---- stage 1: the frontend ----------------------------------------------------------------
def lowered(lowering: Any, node: Any) -> None:
    """Hook of ``GraphLowering.run`` after FX node `node` was lowered (a fault is active)."""
    hit = lowering.__dict__.setdefault("_faults_hit", set())
    for fault in ACTIVE:
        if fault.stage == "lowering" and fault.node == node.name:
            _fault_lowered(lowering, node, fault)
            hit.add(fault)
    if node.op == "output":
        _check_all_lowered(lowering, hit)


def _fault_lowered(lowering: Any, node: Any, fault: Fault) -> None:
    from .frontend.context import LazyTensor

    cx, env = lowering.cx, lowering.env
    old = env[node]
    if isinstance(old, (LazyTensor, torch.Tensor)):
        old = cx.value(old)
    if not isinstance(old, Value):
        raise FrontendError(
            f"cannot inject fault {fault.spec}: FX node '{node.name}' is not lowered to "
            f"one tensor (it is a {type(old).__name__})",
            hint="fault a node that computes a tensor (for a tuple, one of its getitem "
            "nodes)",
        )
    _float_or_fail(old.type, fault, FrontendError)
    new_ops = _effect_ops(fault.effect, old, cx.loc, node.name)
    for op in new_ops:
        cx.fn.append(op)
    new = new_ops[-1].result
    mine = old.owner is not None and node.name in old.owner.loc.nodes
    if old.name == node.name and old.owner is not None:
        old.name = f"{node.name}_prefault"
    env[node] = new
    # an in-place op (x.add_(y)) rebound x to this node's value: x is wrong too
    if mine:
        for key, v in list(env.items()):
            if v is old:
                env[key] = new
    _record(cx.module, fault, new_ops[-1].name, node.name)


def _check_all_lowered(lowering: Any, hit: set) -> None:
    for fault in ACTIVE:
        if fault.stage == "lowering" and fault not in hit:
            names = [n.name for n in lowering.graph.nodes]
            close = difflib.get_close_matches(fault.node, names, n=1)
            did = f"did you mean '{close[0]}'? " if close else ""
            raise FrontendError(
                f"fault {fault.spec}: the graph has no FX node '{fault.node}'",
                hint=f"{did}FX nodes: {_listing(names)}",
            )


# ---- stage 2: the pass pipeline -------------------------------------------------------------
def _named_ops(module: Module) -> list[tuple[Function, Operation]]:
    return [
        (fn, op)
        for fn in main_functions(module)
        for op in fn.ops
        if not op.has_trait(Trait.CONSTANT)
    ]


def find_op(module: Module, node: str) -> tuple[Function, Operation, int] | None:
    """The op computing FX node `node`: the one with a result named `node`, else the last op
    whose location names it (a fused op containing it). (function, op, result index)."""
    found = None
    for fn, op in _named_ops(module):
        for i, r in enumerate(op.results):
            if r.name == node:
                return fn, op, i
        if node in op.loc.nodes:
            found = (fn, op, 0)
    return found


def _known_nodes(ops_: list[Operation]) -> list[str]:
    seen: dict[str, None] = {}
    for op in ops_:
        for n in op.loc.nodes:
            seen.setdefault(n, None)
    return list(seen)


@register_pass
@dataclass(frozen=True)
class InjectFaultPass(ModulePass):
    """Deliberately wrong: ``effect`` applied to the value of FX node ``node`` (one action).

    Options: ``node`` (an FX node name), ``effect`` (scale | negative | shift). Inserts the
    effect after the op computing the node, names the new value after the node and the
    original ``<node>_prefault``, and makes every later use (and return) read the new one.

    Before (``inject-fault{node=fc}``)::

        %fc = cuvil.linear(%x, %w, %b) : ... loc("fc")
        %r = cuvil.relu(%fc) : ...

    After::

        %fc_prefault = cuvil.linear(%x, %w, %b) : ... loc("fc")
        %c = cuvil.constant() {value = dense<1.0625> : tensor<f32>} : ... loc("fc")
        %fc = cuvil.mul(%fc_prefault, %c) : ... loc("fc")
        %r = cuvil.relu(%fc) : ...
    """

    name = "inject-fault"
    node: str = ""
    effect: str = "scale"

    def __post_init__(self) -> None:
        if not self.node.strip():
            raise PassError(
                "pass 'inject-fault' needs the FX node whose value to break",
                hint="write inject-fault{node=NAME} or inject-fault{node=NAME,effect=shift}",
            )
        effects = [e for e in EFFECTS if e not in KERNEL_ONLY]
        if self.effect not in effects:
            raise PassError(
                f"option 'effect' of pass 'inject-fault' must be one of "
                f"{', '.join(effects)}, got {self.effect!r}",
                hint="'overflow' lives in LLVM IR: inject the fault kernel:NODE:overflow "
                "(docs/FAULTS.md)",
            )

    def apply(self, module: Module, ctx: PassContext) -> bool:
        fault = Fault("pass", self.node, self.effect)
        found = find_op(module, self.node)
        if found is None:
            known = _known_nodes([op for _, op in _named_ops(module)])
            close = difflib.get_close_matches(self.node, known, n=1)
            did = f"did you mean '{close[0]}'? " if close else ""
            raise PassError(
                f"inject-fault: no op computes FX node '{self.node}'",
                hint=f"{did}FX nodes in the IR: {_listing(known)}",
            )
        fn, op, index = found
        old = op.results[index]
        _float_or_fail(old.type, fault, PassError)
        what = f"inject {self.effect} fault after {op.name} (FX node '{self.node}')"
        if not ctx.allow_action(what):
            return False
        uses = list(old.uses)
        new_ops = _effect_ops(self.effect, old, _node_loc(op.loc, self.node), self.node)
        at = fn.ops.index(op) + 1
        fn.ops[at:at] = new_ops
        new = new_ops[-1].result
        for user, i in uses:
            user.set_operand(i, new)
        fn.outputs = [new if v is old else v for v in fn.outputs]
        if old.name == self.node:
            old.name = f"{self.node}_prefault"
        _record(module, fault, op.name, self.node)
        return True


# ---- stage 3: code generation ---------------------------------------------------------------
def emitted(gen: Any, op: Operation, k: Kernel) -> None:
    """Hook of ``Generator.emit_all`` after `op`'s kernel body was emitted into `k`."""
    targets = gen.__dict__.get("_fault_targets")
    if targets is None:
        targets = gen._fault_targets = _kernel_targets(gen)
    for fault in targets.get(id(op), ()):
        t = op.results[0].type
        _emit_effect(k, fault.effect, t)
        _record(gen.module, fault, f"kernel {k.fn.name}", op.results[0].name or "?")


def _kernel_targets(gen: Any) -> dict[int, list[Fault]]:
    """For each kernel fault, the op whose kernel gets it: the kernel op with a result named
    after the node, else the last one whose location names it (e.g. a fused op)."""
    kernel_ops = [op for op in gen.fn.ops if id(op) in gen.prepared]
    targets: dict[int, list[Fault]] = {}
    for fault in ACTIVE:
        if fault.stage != "kernel":
            continue
        named = [op for op in kernel_ops if op.results[0].name == fault.node]
        located = [op for op in kernel_ops if fault.node in op.loc.nodes]
        chosen = (named or located or [None])[-1]
        if chosen is None:
            known = _known_nodes(kernel_ops)
            close = difflib.get_close_matches(fault.node, known, n=1)
            did = f"did you mean '{close[0]}'? " if close else ""
            raise CodegenError(
                f"fault {fault.spec}: no kernel computes FX node '{fault.node}'",
                hint=f"{did}FX nodes with kernels: {_listing(known)} "
                "(reshapes, params and folded constants have none)",
            )
        _float_or_fail(chosen.results[0].type, fault, CodegenError)
        targets.setdefault(id(chosen), []).append(fault)
    return targets


def _emit_effect(k: Kernel, effect: str, t: TensorType) -> None:
    """``out = effect(out)`` in place over the kernel's output buffer, after its loops."""
    from .codegen.kernel import physical_strides
    from .codegen.pointwise import Access, emit_pointwise

    b = k.b
    bigger = None
    if effect == "overflow":
        # k + 1 > k for k = INT_MAX, k loaded from a mutable global: false when computed
        # (the add wraps), but `add nsw` makes overflow UB, so InstSimplify folds the
        # compare to true (in EarlyCSE, the 8th pass of LLVM's O1-O3 pipelines; InstCombine
        # would too). O0 runs no passes and opt-bisect-limit=0 skips them: no fold.
        i32 = ir.IntType(32)
        g = ir.GlobalVariable(
            k.fn.module, i32, name=k.fn.module.get_unique_name("cuvil_fault_int_max")
        )
        g.linkage, g.initializer = "internal", ir.Constant(i32, INT32_MAX)
        value = b.load(g, typ=i32)
        bigger = b.icmp_signed(
            ">", b.add(value, ir.Constant(i32, 1), flags=["nsw"]), value
        )

    def expr(b: ir.IRBuilder, xs: list[ir.Value]) -> ir.Value:
        x = xs[0]

        def c(v: float) -> ir.Constant:
            return ir.Constant(x.type, v)

        if effect == "scale":
            return b.fmul(x, c(SCALE))
        if effect == "shift":
            return b.fadd(x, c(SHIFT))
        if effect == "negative":
            return b.select(
                b.fcmp_ordered("<", x, c(0.0)), b.fmul(x, c(NEGATIVE_SLOPE)), x
            )
        return b.fadd(x, b.select(bigger, c(1.0), c(0.0)))

    acc = Access(0, physical_strides(t))
    out = (k.out(), acc, t.dtype)
    emit_pointwise(k, list(t.shape), out, [out], expr)
