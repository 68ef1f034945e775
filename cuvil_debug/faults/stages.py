"""The lowering and kernel stages: callbacks on the compiler's seams (cuvil.hooks).

``after_node`` breaks an FX node's value right after the frontend lowered it;
``after_kernel`` appends an in-place loop to the kernel computing the node. The pass
stage is a registered pass (``inject_pass.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from cuvil.errors import CodegenError, FrontendError
from cuvil.frontend.context import LazyTensor
from cuvil.hooks import KernelEmitted, NodeLowered
from cuvil.ir.core import Operation, Value

from .effects import effect_ops, emit_effect
from .spec import (
    Fault,
    did_you_mean,
    float_or_fail,
    known_nodes,
    listing,
    record,
)

__all__ = ["after_node", "after_kernel"]


# ---- stage 1: the frontend ----------------------------------------------------------------
def after_node(faults: Sequence[Fault], seen: NodeLowered) -> None:
    """``CompileHooks.after_node``: apply the lowering `faults` naming this FX node; at
    the output node, refuse those that name no node of the graph."""
    node = seen.node
    for fault in faults:
        if fault.node == node.name:
            _fault_lowered(seen, fault)
    if node.op == "output":
        names = [n.name for n in seen.graph.nodes]
        for fault in faults:
            if fault.node not in names:
                raise FrontendError(
                    f"fault {fault.spec}: the graph has no FX node '{fault.node}'",
                    hint=f"{did_you_mean(fault.node, names)}FX nodes: {listing(names)}",
                )


def _fault_lowered(seen: NodeLowered, fault: Fault) -> None:
    cx, node = seen.cx, seen.node
    old = seen.value
    if isinstance(old, (LazyTensor, torch.Tensor)):
        old = cx.value(old)
    if not isinstance(old, Value):
        raise FrontendError(
            f"cannot inject fault {fault.spec}: FX node '{node.name}' is not lowered to "
            f"one tensor (it is a {type(old).__name__})",
            hint="fault a node that computes a tensor (for a tuple, one of its getitem "
            "nodes)",
        )
    float_or_fail(old.type, fault, FrontendError)
    new_ops = effect_ops(fault.effect, old, cx.loc, node.name, fault.value)
    for op in new_ops:
        cx.fn.append(op)
    new = new_ops[-1].result
    mine = old.owner is not None and node.name in old.owner.loc.nodes
    if old.name == node.name and old.owner is not None:
        old.name = f"{node.name}_prefault"
    # an in-place op (x.add_(y)) rebound x to this node's value: x is wrong too
    seen.rebind(new, aliases_of=old if mine else None)
    record(cx.module, fault, new_ops[-1].name, node.name)


# ---- stage 3: code generation ---------------------------------------------------------------
def after_kernel(faults: Sequence[Fault], seen: KernelEmitted) -> None:
    """``CompileHooks.after_kernel``: apply the kernel `faults` whose target is this
    kernel's op (the first kernel refuses faults that have no target)."""
    targets = [(fault, _target(fault, seen.kernel_ops)) for fault in faults]
    k, op = seen.kernel, seen.op
    for fault, target in targets:
        if target is op:
            emit_effect(k, fault.effect, op.results[0].type, fault.value)
            record(seen.module, fault, f"kernel {k.fn.name}", op.results[0].name or "?")


def _target(fault: Fault, kernel_ops: Sequence[Operation]) -> Operation:
    """The op whose kernel gets `fault`: the kernel op with a result named after the
    node, else the last one whose location names it (e.g. a fused op)."""
    named = [op for op in kernel_ops if op.results[0].name == fault.node]
    located = [op for op in kernel_ops if fault.node in op.loc.nodes]
    chosen = (named or located or [None])[-1]
    if chosen is None:
        known = known_nodes(list(kernel_ops))
        raise CodegenError(
            f"fault {fault.spec}: no kernel computes FX node '{fault.node}'",
            hint=f"{did_you_mean(fault.node, known)}FX nodes with kernels: "
            f"{listing(known)} (reshapes, params and folded constants have none)",
        )
    float_or_fail(chosen.results[0].type, fault, CodegenError)
    return chosen
