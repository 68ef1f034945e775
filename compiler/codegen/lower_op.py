"""Each op of the main function to its kernel: the dispatch, and the loop that emits them.

``prepare(op)`` chooses how an op is computed: the GEMM fast path (gemm_ops) for linear,
matmul and convolution, batch norm folded to x * scale + shift, one kernel for a whole
``cuvil.fused`` body (fused.py), else the op's portable kernel, ``lower_op``: one
``match`` over op classes whose arms call the emitter modules (pointwise, reduce,
window, contract). ``Lowering`` emits the kernels in op order (``cuvil_k<N>_<node>``)
and records the entry's call sequence.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from llvmlite import ir

from ..errors import CodegenError, CuvilError
from ..hooks import CompileHooks, KernelEmitted
from ..ir import ops
from ..ir.core import Function, Module, Operation, Value
from ..ir.location import Loc
from ..ir.ops.fused import body_of
from . import contract, fused, gemm_ops, indexing, reduce, resample, scan, window
from .buffers import Buffers, moves_nothing
from .debuginfo import DebugInfo
from .entry import Call
from .kernel import Kernel, Prepared
from .pointwise import (
    emit_batch_norm,
    emit_cat,
    emit_elementwise,
    emit_move,
    emit_pointwise,
    prepare_batch_norm,
    tensor_access,
)
from .qdispatch import QUANT_OPS, prepare_quant
from .scalar import binary, emit_cast, unary

__all__ = ["KernelInfo", "Lowering", "prepare", "lower_op", "break_targets"]


@dataclass
class KernelInfo:
    """One generated kernel, for tools: its symbol, the op and where the op came from."""

    symbol: str
    op_name: str
    nodes: tuple[str, ...]
    source: str | None
    call_index: int = -1  # position in the entry's call sequence (profile counters)


def prepare(
    op: Operation,
    param_data: dict[str, torch.Tensor],
    threads: int = 1,
    module: Module | None = None,
) -> Prepared:
    """The GEMM path for contractions when it applies, else the op's portable kernel."""
    match op:
        case ops.LinearOp():
            prep = gemm_ops.prepare_linear(op, param_data, threads)
        case ops.MatmulOp():
            prep = gemm_ops.prepare_matmul(op, param_data, threads)
        case ops.ConvOp():
            prep = gemm_ops.prepare_conv(op, param_data, threads)
        case ops.BatchNormOp():
            prep = prepare_batch_norm(op, param_data)
        case ops.FusedOp():
            prep = fused.prepare_fused(op, module, param_data, threads)
        case ops.nn.MaxPoolOp() | ops.nn.AvgPoolOp() if threads > 1:
            kind = "max" if isinstance(op, ops.nn.MaxPoolOp) else "avg"
            prep = Prepared(lambda k: window.emit_pool(k, op, kind, threads))
        case _ if op.name in QUANT_OPS:  # int8 / bf16 (qdispatch.py, docs/QUANT.md)
            prep = prepare_quant(op, param_data, module, threads)
        case _:
            prep = None
    return prep or Prepared(lambda k: lower_op(k, op))


def lower_op(k: Kernel, op: Operation) -> None:
    """The portable kernel of `op`, emitted into `k`."""
    match op:
        case ops.ClampOp() | ops.UnaryOp():
            fn = unary(op.name, k.in_type(0).dtype)
            emit_elementwise(k, op, lambda b, xs: fn(b, xs[0], op.attrs))
        case ops.BinaryOp():
            fn2 = binary(op.name, k.in_type(0).dtype)
            emit_elementwise(k, op, lambda b, xs: fn2(b, xs[0], xs[1]))
        case ops.WhereOp():
            emit_elementwise(k, op, lambda b, xs: b.select(xs[0], xs[1], xs[2]))
        case ops.CastOp():
            src, dst = k.in_type(0).dtype, op.attrs["dtype"]
            emit_elementwise(k, op, lambda b, xs: emit_cast(b, xs[0], src, dst))
        case ops.BatchNormOp():
            emit_batch_norm(k, op)
        case ops.PermuteOp() | ops.SliceOp() | ops.ExpandOp() | ops.RelayoutOp():
            emit_move(k, op)
        case ops.CatOp():
            emit_cat(k, op)
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
        case _:
            _lower_data_movement(k, op)


def _lower_data_movement(k: Kernel, op: Operation) -> None:
    """lower_op's second half: lookups, scatters, scans and resampling."""
    match op:
        case ops.EmbeddingOp():
            window.emit_embedding(k, op)
        case ops.IndexOp():
            indexing.emit_index(k, op)
        case ops.IndexPutOp():
            indexing.emit_index_put(k, op)
        case ops.GatherOp():
            indexing.emit_gather(k, op)
        case ops.ScatterOp():
            indexing.emit_scatter(k, op)
        case ops.CumOp():
            scan.emit_cum(k, op, op.name.split(".cum")[1])
        case ops.TopkOp():
            scan.emit_topk(k, op)
        case ops.PadOp():
            resample.emit_pad(k, op)
        case ops.UpsampleOp():
            resample.emit_upsample(k, op)
        case ops.GroupNormOp():
            resample.emit_group_norm(k, op)
        case _:
            raise CodegenError(f"no code generation for '{op.name}'")


class Lowering:
    """The kernels of `fn` in `llmod`: ``prepare(op)`` for each op in order, then
    ``emit_all`` and ``emit_copy``; `calls` is the entry's call sequence."""

    def __init__(
        self,
        module: Module,
        fn: Function,
        llmod: ir.Module,
        threads: int = 1,
        debug: bool = False,
        break_on: Sequence[str] = (),
        keep_kernels: bool = False,
    ) -> None:
        self.module, self.fn, self.llmod = module, fn, llmod
        self.threads, self.debug, self.break_on = threads, debug, tuple(break_on)
        # debug or perf builds: every kernel stays a function of its own (not inlined)
        self.keep_kernels = debug or keep_kernels
        # full debug info with `debug`, line tables only without (debuginfo.py)
        self.dbg = DebugInfo(llmod, f"{module.name}.cuvilir", variables=debug)
        self.prepared: dict[int, Prepared] = {}
        self.kernels: list[KernelInfo] = []
        self.op_of: dict[str, Operation] = {}  # kernel symbol -> the op it computes
        self.symbols: dict[int, str] = {}  # id(op) -> its kernel's symbol (prepare)
        self.calls: list[Call] = []

    def prepare(self, op: Operation) -> None:
        """Plan `op`'s kernel and name it; params, constants, reshapes and relayouts
        that move nothing have none."""
        no_kernel = (ops.ParamOp, ops.ConstantOp, ops.ReshapeOp)
        if not isinstance(op, no_kernel) and not moves_nothing(op):
            self.symbols[id(op)] = self.kernel_name(op)
            self.prepared[id(op)] = prepare(
                op, self.module.param_data, self.threads, self.module
            )

    def kernel_name(self, op: Operation) -> str:
        """``cuvil_k<N>_<node>``: N counts the kernels planned before `op`'s."""
        node = op.loc.nodes[0] if op.loc.nodes else op.name.split(".")[1]
        return f"cuvil_k{len(self.symbols)}_{re.sub(r'[^A-Za-z0-9_]', '_', node)}"

    def emit_all(self, buffers: Buffers, hooks: CompileHooks | None = None) -> None:
        after_kernel = hooks.after_kernel if hooks is not None else None
        kernel_ops = [op for op in self.fn.ops if id(op) in self.prepared]
        traps = break_targets(self.break_on, self.module, kernel_ops)
        for op in self.fn.ops:
            prep = self.prepared.get(id(op))
            if prep is None:
                continue
            k = Kernel(
                self.llmod,
                self.symbols[id(op)],
                op,
                n_scratch=len(prep.scratch),
                n_extra=len(prep.extra),
                debug=self.dbg,
                noinline=self.keep_kernels,
                inplace=buffers.inplace.get(id(op)),
                trap=traps.get(id(op), False),
            )
            try:
                prep.emit(k)
            except CodegenError as e:
                e.where = e.where or op.loc.source() or op.loc.describe()
                raise
            if after_kernel is not None:  # a tool's seam (cuvil.hooks)
                after_kernel(KernelEmitted(op, k, self.module, kernel_ops))
            self.op_of[k.fn.name] = op
            self.kernels.append(
                KernelInfo(
                    k.fn.name, op.name, op.loc.nodes, op.loc.source(), len(self.calls)
                )
            )
            scratch = [buffers.slots[(id(op), j)] for j in range(len(prep.scratch))]
            extra = [buffers.derive(t) for t in prep.extra]
            self.calls.append(
                (k.finish(), [*op.results, *op.operands, *scratch, *extra])
            )

    def emit_copy(self, index: int, v: Value, buffers: Buffers) -> None:
        """An output that is an input, param, constant or a second alias: copy it out."""
        name = f"cuvil_copy_out{index}"
        k = Kernel(self.llmod, name, None, n_out=1, n_in=1, debug=self.dbg)
        emit_pointwise(
            k,
            list(v.type.shape),
            (k.out(), tensor_access(v.type), v.type.dtype),
            [(k.inp(0), tensor_access(v.type), v.type.dtype)],
            lambda b, xs: xs[0],
        )
        out = buffers.output(index, v.type)
        self.calls.append((k.finish(), [out, v]))


# ---- break_on: which kernels start with a debugger trap ------------------------------------
def break_targets(
    names: Sequence[str], module: Module, kernel_ops: Sequence[Operation]
) -> dict[int, Loc | bool]:
    """The ops (ids) whose kernels trap for `names`, with where the trap is located
    (the node's own Loc, or True: the op's): FX nodes (a kernel's own, a fused
    member's or a folded node's: the kernel that computes it; a view's: the kernel
    that computes its data; not a relayout inserted for it) and op names
    (``cuvil.conv2d``: every kernel computing one, fused ones included). An unknown
    name is a CuvilError with close matches."""
    by_name: dict[str, list[Operation]] = {}
    for op in kernel_ops:
        body = body_of(module, op).ops if isinstance(op, ops.FusedOp) else []
        for key in {*op.loc.nodes, op.name, *(o.name for o in body)}:
            by_name.setdefault(key, []).append(op)
    found: dict[int, Loc | bool] = {}
    for name in names:
        hits = by_name.get(name) or _view_source(module, name, kernel_ops)
        # a relayout carries its consumer's nodes but computes none of them
        hits = [op for op in hits if op.name != "cuvil.relayout"] or hits
        if not hits:
            close = difflib.get_close_matches(name, sorted(by_name), n=3, cutoff=0.6)
            guess = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
            raise CuvilError(
                f"break_on: no kernel computes '{name}'{guess}",
                hint="break_on takes FX node names (compiled.program.kernels lists each "
                "kernel's nodes) or op names such as 'cuvil.conv2d'; a node folded to a "
                "constant or removed has no code to stop in",
            )
        for op in hits:
            part = next((p for p in op.loc.parts if p.node == name), None)
            found.setdefault(id(op), part if part and part.file else True)
    return found


def _view_source(
    module: Module, name: str, kernel_ops: Sequence[Operation]
) -> list[Operation]:
    """A node lowered to a view (cuvil.reshape, a relayout that moves nothing) traps
    where its data is computed."""
    v = module.fx_values.get(name)
    while isinstance(v, Value) and (
        isinstance(v.owner, ops.ReshapeOp) or moves_nothing(v.owner)
    ):
        v = v.owner.operands[0]
    owner = v.owner if isinstance(v, Value) else None
    return [op for op in kernel_ops if op is owner]
