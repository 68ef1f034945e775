"""Pointwise kernels: out[i] = f(in_0[map_0(i)], ...) where each map is affine (offset + strides).

One emitter covers elementwise math with broadcasting (stride 0), and data movement:
permute (permuted strides), slice (offset, scaled stride), expand (stride 0) and cat (each
input written through an offset view of the output). Dims that every access walks
contiguously are merged first, so most kernels become one flat loop LLVM vectorizes.

The op lowerings built on it are here too: elementwise ops, batch norm (folded to
x * scale + shift when its statistics are constants), relayout/permute/slice/expand, cat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from llvmlite import ir

from ..ir import ops
from ..ir.core import Operation
from ..ir.types import DType, TensorType
from .kernel import Kernel, Prepared, const_data, contiguous_strides, physical_strides
from .loops import i64, linear_offset, loop_nest

__all__ = [
    "Access",
    "emit_pointwise",
    "broadcast_access",
    "tensor_access",
    "emit_elementwise",
    "emit_batch_norm",
    "prepare_batch_norm",
    "emit_move",
    "emit_cat",
]


@dataclass(frozen=True)
class Access:
    """Element offset = offset + sum(idx[d] * strides[d]) over the output's dims."""

    offset: int
    strides: tuple[int, ...]


def broadcast_access(
    in_shape: Sequence[int],
    out_shape: Sequence[int],
    own: Sequence[int] | None = None,
) -> Access:
    """Reading a tensor broadcast to `out_shape` (NumPy rules); `own` are its strides per
    logical dim (default: contiguous)."""
    lead = len(out_shape) - len(in_shape)
    own = contiguous_strides(in_shape) if own is None else own
    strides = [0] * lead + [
        0 if s == 1 and o != 1 else st
        for s, o, st in zip(in_shape, out_shape[lead:], own)
    ]
    return Access(0, tuple(strides))


def tensor_access(t: TensorType, out_shape: Sequence[int] | None = None) -> Access:
    """Reading (or writing) tensor `t` in its layout, broadcast to `out_shape` if given."""
    own = physical_strides(t)
    if out_shape is None:
        return Access(0, own)
    return broadcast_access(list(t.shape), list(out_shape), own)


def _loop_order(out: Access) -> list[int]:
    """Loop over dims in the order of decreasing output stride, so a channels-last output is
    written contiguously (for a contiguous output this is the identity)."""
    return sorted(range(len(out.strides)), key=lambda d: -out.strides[d])


def _collapse(
    shape: Sequence[int], accesses: Sequence[Access]
) -> tuple[list[int], list[list[int]]]:
    """Merge adjacent dims d, d+1 when every access has stride[d] == stride[d+1] * shape[d+1]."""
    dims = [d for d in shape]
    strides = [list(a.strides) for a in accesses]
    d = len(dims) - 2
    while d >= 0:
        if all(s[d] == s[d + 1] * dims[d + 1] for s in strides):
            dims[d] *= dims[d + 1]
            del dims[d + 1]
            for s in strides:
                s[d] = s[d + 1]
                del s[d + 1]
        d -= 1
    kept = [i for i, n in enumerate(dims) if n != 1] or ([0] if dims else [])
    return [dims[i] for i in kept], [[s[i] for i in kept] for s in strides]


Expr = Callable[[ir.IRBuilder, list[ir.Value]], ir.Value]


def emit_pointwise(
    k: Kernel,
    shape: Sequence[int],
    out: tuple[ir.Value, Access, DType],
    inputs: Sequence[tuple[ir.Value, Access, DType]],
    expr: Expr,
) -> None:
    """Emit the loop nest computing ``out = expr(inputs)`` over `shape`."""
    if any(n == 0 for n in shape):
        return
    accesses = [out[1]] + [a for _, a, _ in inputs]
    order = _loop_order(out[1])
    if order != sorted(order):
        shape = [shape[d] for d in order]
        accesses = [
            Access(a.offset, tuple(a.strides[d] for d in order)) for a in accesses
        ]
    dims, strides = _collapse(list(shape), accesses)
    with loop_nest(k.b, dims) as idx:
        vals = []
        for (ptr, acc, dtype), st in zip(inputs, strides[1:]):
            off = (
                k.b.add(linear_offset(k.b, idx, st), i64(acc.offset))
                if acc.offset
                else linear_offset(k.b, idx, st)
            )
            vals.append(k.load(ptr, off, dtype))
        result = expr(k.b, vals)
        out_off = linear_offset(k.b, idx, strides[0])
        if out[1].offset:
            out_off = k.b.add(out_off, i64(out[1].offset))
        k.store(result, out[0], out_off, out[2])


# ---- ops lowered to one pointwise nest ----------------------------------------------------
def emit_elementwise(k: Kernel, op: Operation, expr: Expr) -> None:
    """out = expr(operands) for an elementwise op, its operands read broadcast."""
    shape = list(k.out_type.shape)
    inputs = [
        (k.inp(i), tensor_access(v.type, shape), v.type.dtype)
        for i, v in enumerate(op.operands)
    ]
    emit_pointwise(
        k, shape, (k.out(), tensor_access(k.out_type), k.out_type.dtype), inputs, expr
    )


def emit_batch_norm(k: Kernel, op: Operation) -> None:
    """x * alpha + beta with alpha = weight / sqrt(var + eps), beta = bias - mean *
    alpha, statistics per channel (dim 1): torch's order ((x - mean) / std overflows
    near the float range where x * alpha does not)."""
    t = k.out_type
    shape, eps = list(t.shape), op.attrs["eps"]
    per_channel = [1, shape[1]] + [1] * (len(shape) - 2)
    inputs = [(k.inp(0), tensor_access(t), t.dtype)]
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
        alpha = b.fdiv(ir.Constant(x.type, 1.0), std)
        if has_w:
            alpha = b.fmul(alpha, xs[3])
        beta = b.fneg(b.fmul(mean, alpha))
        if has_b:
            beta = b.fadd(xs[4], beta)
        return b.fadd(b.fmul(x, alpha), beta)

    emit_pointwise(k, shape, (k.out(), tensor_access(t), t.dtype), inputs, expr)


def prepare_batch_norm(op: Operation, param_data) -> Prepared | None:
    """With constant statistics, batch norm is y = x * scale[c] + shift[c] (folded here)."""
    stats = [const_data(v, param_data) for v in op.operands[1:]]
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
            (k.inp(0), tensor_access(t), t.dtype),
            (k.extra(0), per_channel, t.dtype),
            (k.extra(1), per_channel, t.dtype),
        ]
        emit_pointwise(
            k,
            shape,
            (k.out(), tensor_access(t), t.dtype),
            inputs,
            lambda b, xs: b.fadd(b.fmul(xs[0], xs[1]), xs[2]),
        )

    return Prepared(emit, extra=[scale.to(dtype), shift.to(dtype)])


def emit_move(k: Kernel, op: Operation) -> None:
    """Relayout, permute, slice or expand: a copy through the operand's index map."""
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
        (k.out(), tensor_access(tout), tout.dtype),
        [(k.inp(0), acc, tin.dtype)],
        lambda b, xs: xs[0],
    )


def emit_cat(k: Kernel, op: Operation) -> None:
    """Each operand copied into its offset view of the output."""
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
            [(k.inp(i), tensor_access(t), t.dtype)],
            lambda b, xs: xs[0],
        )
        start += t.shape[dim]
