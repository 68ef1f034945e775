"""Pointwise kernels: out[i] = f(in_0[map_0(i)], ...) where each map is affine (offset + strides).

One emitter covers elementwise math with broadcasting (stride 0), and data movement:
permute (permuted strides), slice (offset, scaled stride), expand (stride 0) and cat (each
input written through an offset view of the output). Dims that every access walks
contiguously are merged first, so most kernels become one flat loop LLVM vectorizes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from llvmlite import ir

from ..ir.types import DType, TensorType
from .kernel import Kernel, contiguous_strides, physical_strides
from .loops import i64, linear_offset, loop_nest

__all__ = ["Access", "emit_pointwise", "broadcast_access", "tensor_access"]


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
