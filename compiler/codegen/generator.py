"""Cuvil IR -> LLVM IR: one kernel per op and an entry function that calls them in order.

    void cuvil_main(ptr inputs[], ptr outputs[], ptr params[], ptr arena)

Every tensor is a contiguous buffer: a model input, an output (allocated by the caller), a
param (its data pointer), an inline constant (an LLVM global), or a slice of the arena whose
offsets the memory plan chose. ``cuvil.reshape`` moves no data: its result aliases its
operand. Dispatch is one ``match`` over op classes; the emitters live in their own modules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import torch
from llvmlite import ir

from ..errors import CodegenError
from ..hooks import CompileHooks, KernelEmitted
from ..ir import ops
from ..ir.core import Function, Module, Operation, Value
from ..ir.types import TensorType
from ..runtime.memory import Interval, plan_arena
from . import contract, fused, gemm_ops, reduce, window
from .debuginfo import DebugInfo
from .kernel import PTR, Kernel, contiguous_strides, physical_strides
from .loops import i64
from .pointwise import Access, broadcast_access, emit_pointwise, tensor_access
from .scalar import BINARY, UNARY, emit_cast, mem_type
from .target import target_triple

__all__ = ["Program", "KernelInfo", "Slot", "StepInfo", "generate"]

ENTRY = "cuvil_main"
STEP_PREFIX = "cuvil_step_"  # cuvil_step_<i>: call i of the entry alone (steps=True)
PROFILE_SYMBOL = "cuvil_profile"


@dataclass(frozen=True)
class Slot:
    """Where a tensor lives at run time: kind is input|output|param|const|arena."""

    kind: str
    index: int | str  # position in its array, arena byte offset, or global name


@dataclass
class KernelInfo:
    """One generated kernel, for tools: its symbol, the op and where the op came from."""

    symbol: str
    op_name: str
    nodes: tuple[str, ...]
    source: str | None
    call_index: int = -1  # position in the entry's call sequence (profile counters)


@dataclass
class StepInfo:
    """Call `index` of the entry, emitted alone as `symbol` (``generate(steps=True)``).

    `op` is the IR op the call computes; None for an output copy (an output that is an
    input, param, constant or a second alias), whose `operands` are ``[v]``, `results`
    empty and `output` the index of the output it writes.
    """

    index: int
    symbol: str
    op: Operation | None
    operands: list[Value]
    results: list[Value]
    output: int | None = None


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

    def slot_of(self, v: Value) -> Slot | None:
        """Where `v` lives (a reshape shares its operand's slot; an in-place result its
        operand's); None when `v` is not a value of the main function."""
        return self.slots.get(id(v)) if self.values.get(id(v)) is v else None


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


class Generator:
    def __init__(
        self, module: Module, fn: Function, debug: bool, threads: int = 1
    ) -> None:
        self.module, self.fn, self.debug, self.threads = module, fn, debug, threads
        self.llmod = ir.Module(name=module.name)
        self.llmod.triple = target_triple()
        self.slots: dict[int, Slot] = {}
        self.alias: dict[int, Value] = {}
        self.params: list[str] = []
        self.kernels: list[KernelInfo] = []
        self.calls: list[tuple[ir.Function, list[Value | Slot]]] = []
        self.prepared: dict[int, gemm_ops.Prepared] = {}
        self.derived: dict[str, torch.Tensor] = {}
        self.inplace: dict[
            int, int
        ] = {}  # op -> operand whose buffer its result reuses
        self.dbg = DebugInfo(self.llmod, f"{module.name}.cuvilir") if debug else None

    # ---- slots ---------------------------------------------------------------------------
    def root(self, v: Value) -> Value:
        while id(v) in self.alias:
            v = self.alias[id(v)]
        return v

    def assign_slots(self) -> tuple[list[tuple[int, Value]], int]:
        for i, a in enumerate(self.fn.args):
            self.slots[id(a)] = Slot("input", i)
        for op in self.fn.ops:
            self._slot_for(op)
            if not isinstance(op, (ops.ParamOp, ops.ConstantOp, ops.ReshapeOp)):
                self.prepared[id(op)] = prepare(
                    op, self.module.param_data, self.threads, self.module
                )
        self._reuse_inplace()
        copies = self._bind_outputs()
        return copies, self._plan_arena()

    def _reuse_inplace(self) -> None:
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
            if j is None or id(op) not in self.prepared:
                continue
            root = self.root(op.operands[j])
            twice = sum(1 for v in op.operands if self.root(v) is root) > 1
            if twice or id(root) in self.slots or last.get(id(root)) != i:
                continue  # a model input, param or constant, or still read later
            self.alias[id(op.result)] = root
            self.inplace[id(op)] = j
            last[id(root)] = last.get(id(op.result), i)

    def _slot_for(self, op: Operation) -> None:
        r = op.results[0]
        if isinstance(op, ops.ParamOp):
            name = op.symbol()
            if name not in self.params:
                self.params.append(name)
            self.slots[id(r)] = Slot("param", self.params.index(name))
        elif isinstance(op, ops.ConstantOp):
            self.slots[id(r)] = Slot("const", self._global(op))
        elif isinstance(op, ops.ReshapeOp):
            self.alias[id(r)] = op.operands[0]

    def _global(self, op: Operation) -> str:
        data = op.attrs["value"].contiguous()
        t = mem_type(op.result.type.dtype)
        values = data.reshape(-1).tolist() if data.numel() else []
        arr_t = ir.ArrayType(t, max(len(values), 1))
        init = [
            ir.Constant(t, float(v) if op.result.type.dtype.is_float else int(v))
            for v in values
        ]
        g = ir.GlobalVariable(
            self.llmod, arr_t, name=f"cuvil_const{len(self.llmod.globals)}"
        )
        g.global_constant, g.linkage = True, "internal"
        g.initializer = ir.Constant(arr_t, init or [ir.Constant(t, 0)])
        g.align = 64
        return g.name

    def _bind_outputs(self) -> list[tuple[int, Value]]:
        copies = []
        for i, v in enumerate(self.fn.outputs):
            root = self.root(v)
            if id(root) not in self.slots:  # owned by a kernel and not yet an output
                self.slots[id(root)] = Slot("output", i)
            else:
                copies.append((i, v))
        return copies

    def _plan_arena(self) -> int:
        last: dict[int, int] = {}
        for i, op in enumerate(self.fn.ops):
            for v in op.operands:
                last[id(self.root(v))] = i
        intervals = []
        for i, op in enumerate(self.fn.ops):
            prep = self.prepared.get(id(op))
            for j, size in enumerate(prep.scratch if prep else ()):
                intervals.append(Interval((id(op), j), size, i, i))
            for r in op.results:
                if id(r) in self.slots or id(r) in self.alias:
                    continue
                intervals.append(Interval(id(r), nbytes(r.type), i, last.get(id(r), i)))
        offsets, total = plan_arena(intervals)
        for key, off in offsets.items():
            self.slots[key] = Slot("arena", off)
        return total

    # ---- kernels -------------------------------------------------------------------------
    def kernel_name(self, op: Operation) -> str:
        node = op.loc.nodes[0] if op.loc.nodes else op.name.split(".")[1]
        return f"cuvil_k{len(self.kernels)}_{re.sub(r'[^A-Za-z0-9_]', '_', node)}"

    def emit_all(self, hooks: CompileHooks | None = None) -> None:
        after_kernel = hooks.after_kernel if hooks is not None else None
        kernel_ops = [op for op in self.fn.ops if id(op) in self.prepared]
        for op in self.fn.ops:
            prep = self.prepared.get(id(op))
            if prep is None:
                continue
            k = Kernel(
                self.llmod,
                self.kernel_name(op),
                op,
                n_scratch=len(prep.scratch),
                n_extra=len(prep.extra),
                debug=self.dbg,
                noinline=self.debug,
                inplace=self.inplace.get(id(op)),
            )
            try:
                prep.emit(k)
            except CodegenError as e:
                e.where = e.where or op.loc.source() or op.loc.describe()
                raise
            if after_kernel is not None:  # a tool's seam (cuvil.hooks)
                after_kernel(KernelEmitted(op, k, self.module, kernel_ops))
            self.kernels.append(
                KernelInfo(
                    k.fn.name, op.name, op.loc.nodes, op.loc.source(), len(self.calls)
                )
            )
            scratch = [self.slots[(id(op), j)] for j in range(len(prep.scratch))]
            extra = [self._derive(t) for t in prep.extra]
            self.calls.append(
                (k.finish(), [*op.results, *op.operands, *scratch, *extra])
            )

    def _derive(self, data: torch.Tensor) -> Slot:
        """A compile-time tensor made by the code generator, passed like a param."""
        name = f"__derived{len(self.derived)}"
        self.derived[name] = data.contiguous()
        self.params.append(name)
        return Slot("param", len(self.params) - 1)

    def emit_copy(self, index: int, v: Value) -> None:
        """An output that is an input, param, constant or a second alias: copy it out."""
        k = Kernel(self.llmod, f"cuvil_copy_out{index}", None, n_out=1, n_in=1)
        emit_pointwise(
            k,
            list(v.type.shape),
            (k.out(), _flat(v.type), v.type.dtype),
            [(k.inp(0), _flat(v.type), v.type.dtype)],
            lambda b, xs: xs[0],
        )
        out = Value(v.type)
        self.slots[id(out)] = Slot("output", index)
        self.calls.append((k.finish(), [out, v]))

    # ---- entry ---------------------------------------------------------------------------
    def emit_entry(self, profile: bool = False) -> None:
        fn = ir.Function(self.llmod, ir.FunctionType(ir.VoidType(), [PTR] * 4), ENTRY)
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        arrays = {"input": fn.args[0], "output": fn.args[1], "param": fn.args[2]}
        counters = self._profile_counters() if profile else None
        for i, (callee, values) in enumerate(self.calls):
            args = [self._pointer(b, arrays, fn.args[3], v) for v in values]
            if counters is None:
                b.call(callee, args)
            else:
                _timed_call(b, callee, args, counters, i)
        b.ret_void()

    def emit_steps(self) -> list[StepInfo]:
        """``cuvil_step_<i>``: the entry's call i alone, with the entry's signature and
        the same argument pointers (emitted after the entry: its text is unchanged)."""
        made_by = {id(r): op for op in self.fn.ops for r in op.results}
        steps = []
        for i, (callee, values) in enumerate(self.calls):
            name = f"{STEP_PREFIX}{i}"
            fn = ir.Function(
                self.llmod, ir.FunctionType(ir.VoidType(), [PTR] * 4), name
            )
            b = ir.IRBuilder(fn.append_basic_block("entry"))
            arrays = {"input": fn.args[0], "output": fn.args[1], "param": fn.args[2]}
            b.call(callee, [self._pointer(b, arrays, fn.args[3], v) for v in values])
            b.ret_void()
            first = values[0] if values else None
            op = made_by.get(id(first)) if isinstance(first, Value) else None
            if op is not None:
                steps.append(StepInfo(i, name, op, list(op.operands), list(op.results)))
                continue
            vals = [v for v in values[1:] if isinstance(v, Value)]
            out = self.slots.get(id(first)) if isinstance(first, Value) else None
            index = out.index if out is not None and out.kind == "output" else None
            steps.append(StepInfo(i, name, None, vals, [], index))
        return steps

    def value_slots(self) -> dict[int, tuple[Value, Slot]]:
        """id(value) -> (value, slot) for the main function's arguments and op results."""
        values = [*self.fn.args, *(r for op in self.fn.ops for r in op.results)]
        found = {}
        for v in values:
            slot = self.slots.get(id(self.root(v)))
            if slot is not None:
                found[id(v)] = (v, slot)
        return found

    def _profile_counters(self) -> ir.GlobalVariable:
        """``i64 cuvil_profile[n_calls]``: cycles spent in each kernel, accumulated."""
        arr_t = ir.ArrayType(ir.IntType(64), max(len(self.calls), 1))
        g = ir.GlobalVariable(self.llmod, arr_t, name=PROFILE_SYMBOL)
        g.initializer = ir.Constant(arr_t, None)
        return g

    def _pointer(self, b: ir.IRBuilder, arrays, arena, v: Value | Slot) -> ir.Value:
        slot = v if isinstance(v, Slot) else self.slots[id(self.root(v))]
        if slot.kind == "arena":
            return b.gep(
                arena, [i64(slot.index)], inbounds=True, source_etype=ir.IntType(8)
            )
        if slot.kind == "const":
            return self.llmod.get_global(slot.index)
        addr = b.gep(
            arrays[slot.kind], [i64(slot.index)], inbounds=True, source_etype=PTR
        )
        return b.load(addr, typ=PTR)


def _timed_call(b: ir.IRBuilder, callee, args, counters, i: int) -> None:
    clock = b.module.declare_intrinsic(
        "llvm.readcyclecounter", (), ir.FunctionType(ir.IntType(64), [])
    )
    t0 = b.call(clock, [])
    b.call(callee, args)
    spent = b.sub(b.call(clock, []), t0)
    slot = b.gep(counters, [i64(0), i64(i)], inbounds=True)
    b.store(b.add(b.load(slot), spent), slot)


def _flat(t: TensorType) -> Access:
    """All of `t` in its layout's order (contiguous: row-major)."""
    return Access(0, physical_strides(t))


# ---- dispatch ---------------------------------------------------------------------------------
def prepare(
    op: Operation,
    param_data: dict[str, torch.Tensor],
    threads: int = 1,
    module: Module | None = None,
) -> gemm_ops.Prepared:
    """The GEMM path for contractions when it applies, else the op's portable kernel."""
    match op:
        case ops.LinearOp():
            prep = gemm_ops.prepare_linear(op, param_data, threads)
        case ops.MatmulOp():
            prep = gemm_ops.prepare_matmul(op, param_data, threads)
        case ops.ConvOp():
            prep = gemm_ops.prepare_conv(op, param_data, threads)
        case ops.BatchNormOp():
            prep = _prepare_batch_norm(op, param_data)
        case ops.FusedOp():
            prep = fused.prepare_fused(op, module, param_data, threads)
        case _:
            prep = None
    return prep or gemm_ops.Prepared(lambda k: lower_op(k, op))


def lower_op(k: Kernel, op: Operation) -> None:
    match op:
        case ops.ClampOp() | ops.UnaryOp():
            fn = UNARY[op.name]
            _elementwise(k, op, lambda b, xs: fn(b, xs[0], op.attrs))
        case ops.BinaryOp():
            fn2 = BINARY[op.name]
            _elementwise(k, op, lambda b, xs: fn2(b, xs[0], xs[1]))
        case ops.WhereOp():
            _elementwise(k, op, lambda b, xs: b.select(xs[0], xs[1], xs[2]))
        case ops.CastOp():
            src, dst = k.in_type(0).dtype, op.attrs["dtype"]
            _elementwise(k, op, lambda b, xs: emit_cast(b, xs[0], src, dst))
        case ops.BatchNormOp():
            _batch_norm(k, op)
        case ops.PermuteOp() | ops.SliceOp() | ops.ExpandOp() | ops.RelayoutOp():
            _move(k, op)
        case ops.CatOp():
            _cat(k, op)
        case ops.VarOp() | ops.ReduceOp():
            reduce.emit_reduce(k, op, op.name.split(".")[1])
        case ops.ArgmaxOp():
            reduce.emit_argmax(k, op)
        case ops.LogSoftmaxOp():
            reduce.emit_softmax(k, op, log=True)
        case ops.SoftmaxOp():
            reduce.emit_softmax(k, op)
        case ops.LayerNormOp():
            reduce.emit_layer_norm(k, op)
        case ops.MatmulOp():
            contract.emit_matmul(k, op)
        case ops.LinearOp():
            contract.emit_linear(k, op)
        case ops.ConvOp():
            contract.emit_conv(k, op)
        case ops.nn.MaxPoolOp():
            window.emit_pool(k, op, "max")
        case ops.nn.AvgPoolOp():
            window.emit_pool(k, op, "avg")
        case ops.nn.AdaptiveAvgPoolOp():
            window.emit_adaptive_avg_pool(k, op)
        case ops.EmbeddingOp():
            window.emit_embedding(k, op)
        case _:
            raise CodegenError(f"no code generation for '{op.name}'")


def _elementwise(k: Kernel, op: Operation, expr) -> None:
    shape = list(k.out_type.shape)
    inputs = [
        (k.inp(i), tensor_access(v.type, shape), v.type.dtype)
        for i, v in enumerate(op.operands)
    ]
    emit_pointwise(
        k, shape, (k.out(), _flat(k.out_type), k.out_type.dtype), inputs, expr
    )


def _batch_norm(k: Kernel, op: Operation) -> None:
    t = k.out_type
    shape, eps = list(t.shape), op.attrs["eps"]
    per_channel = [1, shape[1]] + [1] * (len(shape) - 2)
    inputs = [(k.inp(0), _flat(t), t.dtype)]
    inputs += [
        (k.inp(i), broadcast_access(per_channel, shape), t.dtype)
        for i in range(1, len(op.operands))
    ]
    has_w, has_b = len(op.operands) > 3, len(op.operands) > 4

    def expr(b, xs):
        x, mean, var = xs[0], xs[1], xs[2]
        std = b.call(
            b.module.declare_intrinsic("llvm.sqrt", [x.type]),
            [b.fadd(var, ir.Constant(x.type, eps))],
        )
        y = b.fdiv(b.fsub(x, mean), std)
        if has_w:
            y = b.fmul(y, xs[3])
        return b.fadd(y, xs[4]) if has_b else y

    emit_pointwise(k, shape, (k.out(), _flat(t), t.dtype), inputs, expr)


def _prepare_batch_norm(op: Operation, param_data) -> gemm_ops.Prepared | None:
    """With constant statistics, batch norm is y = x * scale[c] + shift[c] (folded here)."""
    stats = [gemm_ops.const_data(v, param_data) for v in op.operands[1:]]
    if any(s is None for s in stats) or not op.result.type.dtype.is_float:
        return None
    mean, var, *affine = (s.double() for s in stats)
    scale = 1.0 / torch.sqrt(var + op.attrs["eps"])
    if affine:
        scale = scale * affine[0]
    shift = -mean * scale + (affine[1] if len(affine) > 1 else 0.0)
    dtype = op.result.type.dtype.torch

    def emit(k: Kernel) -> None:
        t = k.out_type
        shape = list(t.shape)
        per_channel = broadcast_access([1, shape[1]] + [1] * (len(shape) - 2), shape)
        inputs = [
            (k.inp(0), _flat(t), t.dtype),
            (k.extra(0), per_channel, t.dtype),
            (k.extra(1), per_channel, t.dtype),
        ]
        emit_pointwise(
            k,
            shape,
            (k.out(), _flat(t), t.dtype),
            inputs,
            lambda b, xs: b.fadd(b.fmul(xs[0], xs[1]), xs[2]),
        )

    return gemm_ops.Prepared(emit, extra=[scale.to(dtype), shift.to(dtype)])


def _move(k: Kernel, op: Operation) -> None:
    tin, tout = k.in_type(0), k.out_type
    own = physical_strides(tin)
    if isinstance(op, ops.RelayoutOp):  # same logical index, other memory order
        acc = Access(0, own)
    elif isinstance(op, ops.PermuteOp):
        acc = Access(0, tuple(own[d] for d in op.attrs["dims"]))
    elif isinstance(op, ops.SliceOp):
        d = op.attrs["dim"]
        strides = list(own)
        strides[d] *= op.attrs["step"]
        acc = Access(op.attrs["start"] * own[d], tuple(strides))
    else:
        acc = broadcast_access(list(tin.shape), list(tout.shape), own)
    emit_pointwise(
        k,
        list(tout.shape),
        (k.out(), _flat(tout), tout.dtype),
        [(k.inp(0), acc, tin.dtype)],
        lambda b, xs: xs[0],
    )


def _cat(k: Kernel, op: Operation) -> None:
    tout, dim = k.out_type, op.attrs["dim"]
    out_strides = contiguous_strides(tout.shape)
    start = 0
    for i, v in enumerate(op.operands):
        t = v.type
        dst = Access(start * out_strides[dim], out_strides)
        emit_pointwise(
            k,
            list(t.shape),
            (k.out(), dst, tout.dtype),
            [(k.inp(i), _flat(t), t.dtype)],
            lambda b, xs: xs[0],
        )
        start += t.shape[dim]


def _check_boundary_layouts(module: Module, fn: Function) -> None:
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


def generate(
    module: Module,
    debug: bool = False,
    profile: bool = False,
    threads: int = 1,
    steps: bool = False,
    hooks: CompileHooks | None = None,
) -> Program:
    """Generate LLVM IR for the module's main function (``profile``: per-kernel cycles;
    ``threads``: large GEMMs split their rows over that many threads; ``steps``: also
    emit ``cuvil_step_<i>`` per call of the entry, see `StepInfo`; the entry and the
    kernels are the same text as without; ``hooks``: ``after_kernel``, cuvil.hooks)."""
    fn = module.main
    _check_boundary_layouts(module, fn)
    gen = Generator(module, fn, debug, threads)
    copies, arena = gen.assign_slots()
    gen.emit_all(hooks)
    for index, v in copies:
        gen.emit_copy(index, v)
    gen.emit_entry(profile)
    step_infos = gen.emit_steps() if steps else []
    located = gen.value_slots()
    return Program(
        str(gen.llmod),
        [a.type for a in fn.args],
        list(fn.result_types),
        gen.params,
        arena,
        gen.kernels,
        derived=gen.derived,
        steps=step_infos,
        slots={key: slot for key, (_, slot) in located.items()},
        values={key: v for key, (v, _) in located.items()},
    )
