"""One generated kernel: ``void name(ptr out..., ptr in..., ptr scratch..., ptr extra...)``.

Every tensor is a contiguous buffer with a static shape; a kernel knows its operand types from
the IR op it implements. Instructions carry the op's DILocation, a fused member's its own
(``located``), except the entry block's argument handling, which stays location-free so
debuggers stop after it (debuginfo.py). With ``trap`` (``break_on``) the kernel starts
with ``llvm.debugtrap``, after that prologue, located at the op (True) or at the FX
node's own line (a Loc).

The kernel protocol: preparing an op for code generation gives a ``Prepared``, the
compile-time part (derived constant tensors such as packed weights, scratch sizes) and
the emitter that fills a ``Kernel`` with that many extra and scratch pointers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field

import torch
from llvmlite import ir

from ..errors import CodegenError
from ..ir.core import Operation, Value
from ..ir.location import AnyLoc
from ..ir.ops.constant import ConstantOp, ParamOp
from ..ir.types import DType, TensorType
from .debuginfo import DebugInfo, KernelArg, debug_attributes
from .loops import i64
from .scalar import mem_type, to_mem, to_reg

__all__ = [
    "defer",
    "emit_deferred",
    "Kernel",
    "Prepared",
    "const_data",
    "contiguous_strides",
    "physical_strides",
    "PTR",
]

PTR = ir.PointerType()


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return tuple(reversed(strides))


def physical_strides(t: TensorType) -> tuple[int, ...]:
    """Element strides of each *logical* dim of `t` in memory, as its layout orders it.

    contiguous: row-major of the logical shape; nhwc: (N, C, H, W) -> (H*W*C, 1, W*C, C);
    nwc: (N, C, L) -> (L*C, 1, C). Blocked layouts (nchw8c, nchw16c) are not affine in
    the logical index, so they have no strides here.
    """
    if t.layout == "contiguous":
        return contiguous_strides(t.shape)
    if t.layout in ("nhwc", "nwc"):
        n, c, *spatial = t.shape
        inner = contiguous_strides([*spatial, c])  # channels last: stride 1
        return (inner[0] * spatial[0], 1, *inner[:-1])
    raise CodegenError(
        f"code generation has no strided form of layout {t.layout} ({t})",
        hint="supported layouts: contiguous, nhwc, nwc; insert cuvil.relayout",
    )


def _debug_args(op: Operation, n_scratch: int, n_extra: int) -> list[KernelArg]:
    """(name, dtype) of each pointer argument, named after the IR values they hold."""
    values = [*op.results, *op.operands]
    named = [(v.name or f"arg{i}", v.type.dtype) for i, v in enumerate(values)]
    named += [(f"scratch{i}", DType.f32) for i in range(n_scratch)]
    named += [(f"extra{i}", DType.f32) for i in range(n_extra)]
    seen: dict[str, int] = {}
    args = []
    for name, dtype in named:
        name = re.sub(r"[^A-Za-z0-9_]", "_", name)
        seen[name] = seen.get(name, 0) + 1
        args.append((name if seen[name] == 1 else f"{name}_{seen[name]}", dtype))
    return args


class Kernel:
    """Emission state of one kernel function."""

    def __init__(
        self,
        module: ir.Module,
        name: str,
        op: Operation | None,
        n_scratch: int = 0,
        debug: DebugInfo | None = None,
        noinline: bool = False,
        n_out: int | None = None,
        n_in: int | None = None,
        n_extra: int = 0,
        inplace: int | None = None,
        trap: bool | AnyLoc = False,
        tail: Sequence[ir.Type] = (),
    ) -> None:
        """`tail`: argument types after the pointers (rowsplit.py: a row range)."""
        self.op = op
        self.n_out = len(op.results) if op is not None else n_out
        self.n_in = len(op.operands) if op is not None else n_in
        self.n_scratch = n_scratch
        self.inplace = inplace
        n_args = self.n_out + self.n_in + n_scratch + n_extra
        self.fn = ir.Function(
            module, ir.FunctionType(ir.VoidType(), [PTR] * n_args + [*tail]), name
        )
        for arg in self.fn.args[:n_args]:
            arg.add_attribute("noalias")
        self.fn.attributes.add("nounwind")
        if noinline:
            self.fn.attributes.add("noinline")
        self.fn.linkage = "internal" if not noinline else "external"
        self.b = ir.IRBuilder(self.fn.append_basic_block("entry"))
        self.dbg, self.scope = debug, None
        if debug is not None:
            self._describe(debug, n_scratch, n_extra)
        if trap is not False:  # break_on: the debugger stops here, once per call
            self._trap(trap)

    def _describe(self, debug: DebugInfo, n_scratch: int, n_extra: int) -> None:
        if debug.variables:
            debug_attributes(self.fn)
        if self.op is None:  # an output copy: no op, no model line
            self.scope = debug.begin_generated(self.b, self.fn)
            return
        args = _debug_args(self.op, n_scratch, n_extra)
        self.scope, _ = debug.begin_kernel(self.b, self.fn, self.op.loc, args)

    def _trap(self, at: bool | AnyLoc) -> None:
        """``llvm.debugtrap`` located at `at` (a debugger reports the stop at the next
        instruction, the kernel's own: ``info line *($pc-1)`` names the node's line)."""
        void = ir.FunctionType(ir.VoidType(), [])
        debugtrap = self.fn.module.declare_intrinsic("llvm.debugtrap", (), void)
        with self.located(at) if at is not True else nullcontext():
            self.b.call(debugtrap, [])

    @contextmanager
    def located(self, loc: AnyLoc):
        """Instructions emitted inside carry `loc`'s location (a fused member's own)."""
        if self.scope is None:
            yield
            return
        saved = self.b.debug_metadata
        self.b.debug_metadata = self.dbg.location(self.scope, loc)
        try:
            yield
        finally:
            self.b.debug_metadata = saved

    # ---- arguments -----------------------------------------------------------------------
    def out(self, i: int = 0) -> ir.Argument:
        return self.fn.args[i]

    def inp(self, i: int) -> ir.Argument:
        """Input i's pointer; for the in-place operand, the output's (the same buffer, one
        pointer, so `noalias` stays true and LLVM still vectorizes without overlap checks)."""
        if i == self.inplace:
            return self.out()
        return self.fn.args[self.n_out + i]

    def scratch(self, i: int = 0) -> ir.Argument:
        return self.fn.args[self.n_out + self.n_in + i]

    def extra(self, i: int = 0) -> ir.Argument:
        """Compile-time tensors the code generator derived (e.g. packed weights)."""
        return self.fn.args[self.n_out + self.n_in + self.n_scratch + i]

    @property
    def out_type(self) -> TensorType:
        return self.op.results[0].type

    def in_type(self, i: int) -> TensorType:
        return self.op.operands[i].type

    # ---- memory --------------------------------------------------------------------------
    def addr(self, ptr: ir.Value, offset: ir.Value | int, dtype: DType) -> ir.Value:
        off = i64(offset) if isinstance(offset, int) else offset
        return self.b.gep(ptr, [off], inbounds=True, source_etype=mem_type(dtype))

    def load(self, ptr: ir.Value, offset, dtype: DType) -> ir.Value:
        v = self.b.load(self.addr(ptr, offset, dtype), typ=mem_type(dtype))
        return to_reg(self.b, v, dtype)

    def store(self, value: ir.Value, ptr: ir.Value, offset, dtype: DType) -> None:
        self.b.store(to_mem(self.b, value, dtype), self.addr(ptr, offset, dtype))

    def alloca(
        self, t: ir.Type, init: ir.Value | None = None, name: str = ""
    ) -> ir.Value:
        """A stack slot in the entry block (promoted to a register by LLVM at O1+)."""
        with self.b.goto_block(self.fn.entry_basic_block):
            if self.fn.entry_basic_block.instructions:
                self.b.position_before(self.fn.entry_basic_block.instructions[0])
            slot = self.b.alloca(t, name=name)
        if init is not None:
            self.b.store(init, slot)
        return slot

    def finish(self) -> ir.Function:
        self.b.ret_void()
        return self.fn


@dataclass
class Prepared:
    """How to emit one kernel: extra constant tensors, scratch sizes and the emitter."""

    emit: Callable[[Kernel], None]
    extra: list[torch.Tensor] = field(default_factory=list)
    scratch: list[int] = field(default_factory=list)  # bytes


def const_data(v: Value, param_data: dict[str, torch.Tensor]) -> torch.Tensor | None:
    """The compile-time data of a value defined by cuvil.param / cuvil.constant."""
    op = v.owner
    if isinstance(op, ParamOp):
        return param_data.get(op.symbol())
    if isinstance(op, ConstantOp):
        return op.attrs["value"]
    return None


def defer(module: ir.Module, emit: Callable[[], None]) -> None:
    """Run `emit()` once every kernel of `module` is emitted (``emit_deferred``): the
    body of a function shared by kernels that depends on what all its callers ask for
    (conv_ops.py: one convolution with and without a residual)."""
    module.__dict__.setdefault("_cuvil_deferred", []).append(emit)


def emit_deferred(module: ir.Module) -> None:
    for emit in module.__dict__.pop("_cuvil_deferred", []):
        emit()
