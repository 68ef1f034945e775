"""Cuvil IR -> LLVM IR: one kernel per op and an entry function that calls them in order.

    void cuvil_main(ptr inputs[], ptr outputs[], ptr params[], ptr arena)

``generate`` is the driver over three rooms: buffers.py (where each tensor lives: input,
output, param, inline constant or arena slice), lower_op.py (how each op becomes its
kernel: one ``match`` over op classes, emitters in their own modules) and entry.py (the
entry function, its per-call step variants and the cycle profile).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import torch

from ..hooks import CompileHooks
from ..ir.core import Module, Value
from ..ir.types import TensorType
from .buffers import Slot
from .entry import ENTRY, SEGMENT_CALLS, StepInfo, emit_entry, emit_steps
from .kernel import emit_deferred
from .lightsplit import light_names
from .lower_op import KernelInfo
from .manifest import build_manifest, emit_manifest
from .plan import plan_build

__all__ = ["Program", "KernelInfo", "Slot", "StepInfo", "generate"]


@dataclass
class Program:
    """What the runtime needs: LLVM IR text and the calling contract of the entry."""

    llvm_ir: str
    inputs: list[TensorType]
    outputs: list[TensorType]
    params: list[str]
    arena_bytes: int
    kernels: list[KernelInfo] = field(default_factory=list)
    entry: str = ENTRY
    derived: dict[str, torch.Tensor] = field(
        default_factory=dict
    )  # e.g. packed weights
    steps: list[StepInfo] = field(default_factory=list)  # only with steps=True
    # id(value) -> its buffer, for every value of the main function (aliases resolved)
    slots: dict[int, Slot] = field(default_factory=dict, repr=False)
    values: dict[int, Value] = field(default_factory=dict, repr=False)
    # hand-vectorized functions LLVM's IR passes skip (lightsplit.py)
    light: tuple[str, ...] = ()

    def mentions(self, symbol: str) -> bool:
        """Does the LLVM IR name `symbol` (a global the runtime looks for, such as
        ``cuvil_status``)? A cached build answers without its text (runtime/ircache.py)."""
        return symbol in self.llvm_ir

    def slot_of(self, v: Value) -> Slot | None:
        """Where `v` lives (a reshape shares its operand's slot; an in-place result its
        operand's); None when `v` is not a value of the main function."""
        return self.slots.get(id(v)) if self.values.get(id(v)) is v else None


def generate(
    module: Module,
    debug: bool = False,
    profile: bool = False,
    threads: int = 1,
    steps: bool = False,
    hooks: CompileHooks | None = None,
    break_on: Sequence[str] = (),
    perf: bool = False,
) -> Program:
    """Generate LLVM IR for the module's main function (``debug``: full DWARF, else
    line tables only, debuginfo.py; ``profile``: per-kernel cycles; ``threads``: large
    GEMMs split their rows over that many threads; ``steps``: also emit
    ``cuvil_step_<i>`` per call of the entry, see `StepInfo`; the entry and the
    kernels are the same text as without; ``hooks``: ``after_kernel``, cuvil.hooks;
    ``break_on``: FX node or op names whose kernels start with a debugger trap;
    ``perf``: no kernel is inlined into the entry, so a profiler names each)."""
    plan = plan_build(
        module, threads, debug, break_on, keep_kernels=perf
    )  # plan.py: slots, arena
    fn, llmod, buffers, lowering = plan.fn, plan.llmod, plan.buffers, plan.lowering
    copies, arena = plan.copies, plan.arena_bytes
    lowering.emit_all(buffers, hooks)
    for index, v in copies:
        lowering.emit_copy(index, v, buffers)
    emit_deferred(llmod)  # shared bodies that waited for all their callers
    ops_called = [lowering.op_of.get(callee.name) for callee, _ in lowering.calls]
    locs = [op.loc if op is not None else None for op in ops_called]
    # kernels a release build inlines into their caller: bounded callers (entry.py)
    segment = 0 if lowering.keep_kernels else SEGMENT_CALLS
    emit_entry(llmod, lowering.calls, buffers, profile, lowering.dbg, locs, segment)
    lowering.dbg.describe_rest(llmod)  # GEMM helpers, thread thunks
    # before the steps: a steppable build is the plain one with step functions appended
    emit_manifest(llmod, build_manifest(module, fn, lowering, buffers, arena))
    step_infos = (
        emit_steps(llmod, fn, lowering.calls, buffers, lowering.dbg, locs)
        if steps
        else []
    )
    located = buffers.value_slots()
    return Program(
        str(llmod),
        [a.type for a in fn.args],
        list(fn.result_types),
        buffers.params,
        arena,
        lowering.kernels,
        derived=buffers.derived,
        steps=step_infos,
        slots={key: slot for key, (_, slot) in located.items()},
        values={key: v for key, (v, _) in located.items()},
        light=light_names(llmod),
    )
