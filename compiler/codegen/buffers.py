"""Where each tensor of the main function lives at run time: its ``Slot``.

A model input, an output (allocated by the caller), a param (its data pointer; also the
tensors the code generator derives, e.g. packed weights), an inline constant (an LLVM
global) or a slice of the arena, whose offsets arena.py plans by liveness. A
``cuvil.reshape`` moves no data: its result aliases its operand (so does a relayout
whose two orders are the same bytes); an op with an honored
``inplace = j`` hint writes its result into operand j's buffer. Inputs, outputs and params
are torch tensors, so they must be contiguous (other layouts live inside the function).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from llvmlite import ir

from ..errors import CodegenError
from ..ir import ops
from ..ir.core import Function, Module, Operation, Value
from ..ir.types import DType, TensorType
from .arena import Interval, plan_arena
from .kernel import Prepared
from .scalar import mem_type

__all__ = ["Slot", "Buffers", "nbytes", "check_boundary_layouts", "moves_nothing"]


@dataclass(frozen=True)
class Slot:
    """Where a tensor lives at run time: kind is input|output|param|const|arena."""

    kind: str
    index: int | str  # position in its array, arena byte offset, or global name


def nbytes(t: TensorType) -> int:
    n = t.numel()
    if n is None:
        raise CodegenError(
            f"code generation needs static shapes, got {t}",
            hint="compile with concrete example inputs (no symbolic dims)",
        )
    return n * _itemsize(t)


_ITEMSIZE = {
    "f64": 8,
    "f32": 4,
    "f16": 2,
    "bf16": 2,
    "i64": 8,
    "i32": 4,
    "i16": 2,
    "i8": 1,
    "u8": 1,
    "i1": 1,
}


def _itemsize(t: TensorType) -> int:
    return _ITEMSIZE[t.dtype.value]


def check_boundary_layouts(module: Module, fn: Function) -> None:
    """Torch tensors in and out, and params, are row-major: other layouts live inside."""
    boundary = [("argument", v.type) for v in fn.args] + [
        ("result", t) for t in fn.result_types
    ]
    boundary += [(f"param @{n}", t) for n, t in module.params.items()]
    for what, t in boundary:
        if t.layout != "contiguous":
            raise CodegenError(
                f"{what} of @{fn.name} has layout {t.layout}: inputs, outputs "
                "and params must be contiguous",
                hint="insert cuvil.relayout inside the function",
            )


class Buffers:
    """The slots of `fn`'s values; inline constants become globals of `llmod`.

    ``place(op)`` for each op in order (params, constants, reshapes), then
    ``assign(prepared)`` once the kernels' plans are known (in-place reuse, outputs,
    the arena: kernel results and scratch buffers).
    """

    def __init__(self, module: Module, fn: Function, llmod: ir.Module) -> None:
        self.module, self.fn, self.llmod = module, fn, llmod
        self.slots: dict[object, Slot] = {}  # id(value), or (id(op), j): scratch j
        self.alias: dict[int, Value] = {}
        self.params: list[str] = []
        self.derived: dict[str, torch.Tensor] = {}
        self.inplace: dict[
            int, int
        ] = {}  # op -> operand whose buffer its result reuses
        self.intervals: list[Interval] = []  # the arena's buffers (assign), for tools
        for i, a in enumerate(fn.args):
            self.slots[id(a)] = Slot("input", i)

    def root(self, v: Value) -> Value:
        while id(v) in self.alias:
            v = self.alias[id(v)]
        return v

    def slot(self, v: Value | Slot) -> Slot:
        """The buffer an entry call passes for `v` (a value, through its aliases)."""
        return v if isinstance(v, Slot) else self.slots[id(self.root(v))]

    def place(self, op: Operation) -> None:
        """Slots that need no kernel: params, inline constants, reshape aliases."""
        r = op.results[0]
        if isinstance(op, ops.ParamOp):
            name = op.symbol()
            if name not in self.params:
                self.params.append(name)
            self.slots[id(r)] = Slot("param", self.params.index(name))
        elif isinstance(op, ops.ConstantOp):
            self.slots[id(r)] = Slot("const", self._global(op))
        elif isinstance(op, ops.ReshapeOp) or moves_nothing(op):
            self.alias[id(r)] = op.operands[0]

    def _global(self, op: Operation) -> str:
        data = op.attrs["value"].contiguous()
        dtype = op.result.type.dtype
        t = mem_type(dtype)
        if dtype is DType.bf16:  # stored as its bit patterns (bfloat.py)
            data = data.view(torch.int16)
        values = data.reshape(-1).tolist() if data.numel() else []
        arr_t = ir.ArrayType(t, max(len(values), 1))
        as_float = dtype.is_float and dtype is not DType.bf16
        init = [ir.Constant(t, float(v) if as_float else int(v)) for v in values]
        g = ir.GlobalVariable(
            self.llmod, arr_t, name=f"cuvil_const{len(self.llmod.globals)}"
        )
        g.global_constant, g.linkage = True, "internal"
        g.initializer = ir.Constant(arr_t, init or [ir.Constant(t, 0)])
        g.align = 64
        return g.name

    def assign(
        self, prepared: dict[int, Prepared]
    ) -> tuple[list[tuple[int, Value]], int]:
        """Slots of the kernels' results (`prepared`: op id -> its kernel's plan):
        returns the outputs that need a copy (index, value) and the arena's size."""
        self._reuse_inplace(prepared)
        copies = self._bind_outputs()
        return copies, self._plan_arena(prepared)

    def _reuse_inplace(self, prepared: dict[int, Prepared]) -> None:
        """Honor ``inplace = j`` hints (memory-hints pass): the result takes operand j's
        buffer when a kernel owns that buffer and nothing reads it later, reshapes included."""
        last: dict[int, int] = {}
        for i, op in enumerate(self.fn.ops):
            for v in op.operands:
                last[id(self.root(v))] = i
        for v in self.fn.outputs:
            last[id(self.root(v))] = len(self.fn.ops)
        for i, op in enumerate(self.fn.ops):
            j = op.attrs.get("inplace")
            if j is None or id(op) not in prepared:
                continue
            root = self.root(op.operands[j])
            twice = sum(1 for v in op.operands if self.root(v) is root) > 1
            if twice or id(root) in self.slots or last.get(id(root)) != i:
                continue  # a model input, param or constant, or still read later
            self.alias[id(op.result)] = root
            self.inplace[id(op)] = j
            last[id(root)] = last.get(id(op.result), i)

    def _bind_outputs(self) -> list[tuple[int, Value]]:
        copies = []
        for i, v in enumerate(self.fn.outputs):
            root = self.root(v)
            if id(root) not in self.slots:  # owned by a kernel and not yet an output
                self.slots[id(root)] = Slot("output", i)
            else:
                copies.append((i, v))
        return copies

    def _plan_arena(self, prepared: dict[int, Prepared]) -> int:
        last: dict[int, int] = {}
        for i, op in enumerate(self.fn.ops):
            for v in op.operands:
                last[id(self.root(v))] = i
        intervals = []
        for i, op in enumerate(self.fn.ops):
            prep = prepared.get(id(op))
            for j, size in enumerate(prep.scratch if prep else ()):
                intervals.append(Interval((id(op), j), size, i, i))
            for r in op.results:
                if id(r) in self.slots or id(r) in self.alias:
                    continue
                intervals.append(Interval(id(r), nbytes(r.type), i, last.get(id(r), i)))
        self.intervals = intervals
        offsets, total = plan_arena(intervals)
        for key, off in offsets.items():
            self.slots[key] = Slot("arena", off)
        return total

    def derive(self, data: torch.Tensor) -> Slot:
        """A compile-time tensor made by the code generator, passed like a param."""
        name = f"__derived{len(self.derived)}"
        self.derived[name] = data.contiguous()
        self.params.append(name)
        return Slot("param", len(self.params) - 1)

    def output(self, index: int, t: TensorType) -> Value:
        """A new value standing for output `index` (the target of an output copy)."""
        out = Value(t)
        self.slots[id(out)] = Slot("output", index)
        return out

    def value_slots(self) -> dict[int, tuple[Value, Slot]]:
        """id(value) -> (value, slot) for the main function's arguments and op results."""
        values = [*self.fn.args, *(r for op in self.fn.ops for r in op.results)]
        found = {}
        for v in values:
            slot = self.slots.get(id(self.root(v)))
            if slot is not None:
                found[id(v)] = (v, slot)
        return found


def moves_nothing(op: Operation) -> bool:
    """A relayout between NCHW and NHWC of a tensor with one channel or one pixel
    (global pooling's [N, C, 1, 1]) has the same bytes in both orders: an alias."""
    if not isinstance(op, ops.RelayoutOp):
        return False
    shape = op.operands[0].type.shape
    ints = len(shape) == 4 and all(isinstance(d, int) for d in shape)
    return ints and (shape[1] == 1 or shape[2] * shape[3] == 1)
