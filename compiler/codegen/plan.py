"""The build plan of a module's main function, before any kernel is emitted.

``plan_build`` is the first half of ``generate`` (generator.py): each op's kernel plan
(lower_op.prepare: GEMM path, scratch sizes, derived tensors), each value's slot
(buffers.py: inputs, outputs, params, constants, reshape aliases, in-place reuse) and
the arena (arena.py: intervals by liveness, offsets, size). ``generate`` emits the
kernels from it; tools that show the memory plan (``cuvil-debug tui``'s memory view)
call it alone, so they read the plan the runtime uses, without emitting LLVM IR.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from llvmlite import ir

from ..errors import CodegenError
from ..ir.core import Function, Module, Value
from ..ir.types import TensorType
from .buffers import Buffers, check_boundary_layouts
from .lower_op import Lowering
from .target import target_triple

__all__ = ["BuildPlan", "plan_build"]


@dataclass
class BuildPlan:
    """Where every tensor of `fn` lives and how each op becomes its kernel.

    `buffers.slots` / `alias` / `inplace` / `intervals`: the memory plan;
    `lowering.prepared` and `lowering.symbols`: the kernels, in op order (call order);
    `copies`: outputs that need a copy kernel after them (index, value)."""

    fn: Function
    llmod: ir.Module
    buffers: Buffers
    lowering: Lowering
    copies: list[tuple[int, Value]]
    arena_bytes: int


def plan_build(
    module: Module,
    threads: int = 1,
    debug: bool = False,
    break_on: Sequence[str] = (),
    keep_kernels: bool = False,
) -> BuildPlan:
    """Plan `module`'s main function (a CodegenError when it cannot be built: dynamic
    shapes, a non-contiguous input, output or param); `keep_kernels`: no kernel is
    inlined into the entry (a profiler sees each by name)."""
    fn = module.main
    check_static_shapes(fn)
    check_boundary_layouts(module, fn)
    llmod = ir.Module(name=module.name)
    llmod.triple = target_triple()
    buffers = Buffers(module, fn, llmod)
    lowering = Lowering(module, fn, llmod, threads, debug, break_on, keep_kernels)
    for op in fn.ops:  # in op order: constants become globals, kernels get their plan
        buffers.place(op)
        lowering.prepare(op)
    copies, arena = buffers.assign(lowering.prepared)
    return BuildPlan(fn, llmod, buffers, lowering, copies, arena)


def check_static_shapes(fn: Function) -> None:
    """Code generation needs every tensor's shape: the first symbolic one (an argument
    or an op's result) is a CodegenError naming the value and where it comes from."""
    for a in fn.args:
        if isinstance(a.type, TensorType) and a.type.numel() is None:
            raise _dynamic(a.type, f"argument {a.name or '?'} of @{fn.name}")
    for op in fn.ops:
        for r in op.results:
            if isinstance(r.type, TensorType) and r.type.numel() is None:
                raise _dynamic(r.type, f"{op.name} at {op.loc.describe()}")


def _dynamic(t: TensorType, what: str) -> CodegenError:
    return CodegenError(
        f"code generation needs static shapes: {what} is {t}",
        hint="compile with concrete example inputs (no symbolic dims)",
    )
