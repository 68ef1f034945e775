"""The pass stage: ``inject-fault{node=N,effect=E}``, a registered pass (one action).

Registered when this module is imported and, for an installed toolkit, through the
``cuvil.passes`` entry point (pyproject.toml), so ``cuvil-opt -p 'inject-fault{...}'``
finds it too.
"""

from __future__ import annotations

from dataclasses import dataclass

from cuvil.errors import CuvilError, PassError
from cuvil.ir.core import Function, Module, Operation, Trait
from cuvil.passes.base import ModulePass, PassContext, main_functions
from cuvil.passes.registry import register_pass

from .effects import effect_ops, node_loc
from .spec import (
    EFFECTS,
    KERNEL_ONLY,
    Fault,
    did_you_mean,
    float_or_fail,
    known_nodes,
    listing,
    record,
)

__all__ = ["InjectFaultPass", "find_op", "pipeline_item"]


def pipeline_item(fault: Fault) -> tuple[str, str]:
    """The ``(anchor, item)`` a pass fault adds to the default pipelines
    (``CompileHooks.passes``): ``inject-fault{...}`` right after ``fold-constants``."""
    param = "" if fault.param is None else f",param={fault.param!r}"
    return (
        "fold-constants",
        f"inject-fault{{node={fault.node},effect={fault.effect}{param}}}",
    )


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


@register_pass
@dataclass(frozen=True)
class InjectFaultPass(ModulePass):
    """Deliberately wrong: ``effect`` applied to the value of FX node ``node`` (one action).

    Options: ``node`` (an FX node name), ``effect`` (scale | negative | shift | ulp |
    accumulate), ``param`` (scale's factor, accumulate's bits; 0: the default). Inserts the
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
    param: float = 0.0

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
        try:
            self.fault()
        except CuvilError as e:
            raise PassError(f"pass 'inject-fault': {e.message}", hint=e.hint) from None

    def fault(self) -> Fault:
        return Fault("pass", self.node, self.effect, self.param or None)

    def apply(self, module: Module, ctx: PassContext) -> bool:
        fault = self.fault()
        found = find_op(module, self.node)
        if found is None:
            known = known_nodes([op for _, op in _named_ops(module)])
            raise PassError(
                f"inject-fault: no op computes FX node '{self.node}'",
                hint=f"{did_you_mean(self.node, known)}FX nodes in the IR: "
                f"{listing(known)}",
            )
        fn, op, index = found
        old = op.results[index]
        float_or_fail(old.type, fault, PassError)
        what = f"inject {self.effect} fault after {op.name} (FX node '{self.node}')"
        if not ctx.allow_action(what):
            return False
        uses = list(old.uses)
        where = node_loc(op.loc, self.node)
        new_ops = effect_ops(self.effect, old, where, self.node, fault.value)
        at = fn.ops.index(op) + 1
        fn.ops[at:at] = new_ops
        new = new_ops[-1].result
        for user, i in uses:
            user.set_operand(i, new)
        fn.outputs = [new if v is old else v for v in fn.outputs]
        if old.name == self.node:
            old.name = f"{self.node}_prefault"
        record(module, fault, op.name, self.node)
        return True
