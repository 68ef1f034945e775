"""Contraction kernels: matmul (batched, broadcasting), linear and convolution.

These loop nests are the portable fallback: i-k-j order (unit-stride inner loop LLVM
vectorizes) and dot products with reassociation. The fast path for large shapes is the
register-tiled GEMM in gemm.py, chosen by the code generator when it applies.
"""

from __future__ import annotations

from ..ir.core import Operation
from .kernel import Kernel, contiguous_strides, physical_strides
from .loops import for_range, i64, linear_offset, loop_nest
from .pointwise import broadcast_access
from .scalar import const, llvm_type

__all__ = ["emit_matmul", "emit_linear", "emit_conv"]

FAST = ("reassoc", "contract")


def emit_matmul(k: Kernel, op: Operation) -> None:
    ta, tb, to = k.in_type(0), k.in_type(1), k.out_type
    m, kk, n = ta.shape[-2], ta.shape[-1], tb.shape[-1]
    batch = list(to.shape[:-2])
    dtype = to.dtype
    sa = broadcast_access(list(ta.shape[:-2]), batch).strides
    sb = broadcast_access(list(tb.shape[:-2]), batch).strides
    so = contiguous_strides(batch)
    with loop_nest(k.b, batch, name="bt") as bidx:
        a0 = k.b.mul(linear_offset(k.b, bidx, sa), i64(m * kk))
        b0 = k.b.mul(linear_offset(k.b, bidx, sb), i64(kk * n))
        o0 = k.b.mul(linear_offset(k.b, bidx, so), i64(m * n))
        with for_range(k.b, m, name="m") as i:
            row = k.b.add(o0, k.b.mul(i, i64(n)))
            with for_range(k.b, n, name="z") as j:
                k.store(const(dtype, 0.0), k.out(), k.b.add(row, j), dtype)
            with for_range(k.b, kk, name="k") as p:
                a = k.load(
                    k.inp(0), k.b.add(a0, k.b.add(k.b.mul(i, i64(kk)), p)), dtype
                )
                brow = k.b.add(b0, k.b.mul(p, i64(n)))
                with for_range(k.b, n, name="n") as j:
                    off = k.b.add(row, j)
                    acc = k.load(k.out(), off, dtype)
                    bv = k.load(k.inp(1), k.b.add(brow, j), dtype)
                    k.store(
                        k.b.fadd(acc, k.b.fmul(a, bv), flags=FAST), k.out(), off, dtype
                    )


def emit_linear(k: Kernel, op: Operation) -> None:
    """y[r, j] = sum_p x[r, p] * w[j, p] + b[j]: a dot product per output."""
    tx, tw = k.in_type(0), k.in_type(1)
    kk, n = tx.shape[-1], tw.shape[0]
    rows = tx.numel() // kk if kk else k.out_type.numel() // max(n, 1)
    dtype = tx.dtype
    with for_range(k.b, rows, name="r") as r:
        with for_range(k.b, n, name="j") as j:
            acc = k.alloca(llvm_type(dtype), const(dtype, 0.0))
            with for_range(k.b, kk, name="p") as p:
                x = k.load(k.inp(0), k.b.add(k.b.mul(r, i64(kk)), p), dtype)
                w = k.load(k.inp(1), k.b.add(k.b.mul(j, i64(kk)), p), dtype)
                k.b.store(k.b.fadd(k.b.load(acc), k.b.fmul(x, w), flags=FAST), acc)
            y = k.b.load(acc)
            if len(op.operands) > 2:
                y = k.b.fadd(y, k.load(k.inp(2), j, dtype))
            k.store(y, k.out(), k.b.add(k.b.mul(r, i64(n)), j), dtype)


def emit_conv(k: Kernel, op: Operation) -> None:
    """Direct convolution: out[n, oc, *o] = b[oc] + sum over (ic in group, *kernel)."""
    tx, tw, to = k.in_type(0), k.in_type(1), k.out_type
    a, dtype = op.attrs, tx.dtype
    groups = a["groups"]
    oc_per_g, ic_per_g = tw.shape[0] // groups, tw.shape[1]
    ins, outs, kern = list(tx.shape[2:]), list(to.shape[2:]), list(tw.shape[2:])
    sx, sw, so = (
        physical_strides(tx),
        contiguous_strides(tw.shape),
        physical_strides(to),
    )
    with loop_nest(k.b, [to.shape[0], to.shape[1], *outs], name="o") as idx:
        nb, oc, o = idx[0], idx[1], idx[2:]
        g = k.b.sdiv(oc, i64(oc_per_g))
        acc = k.alloca(
            llvm_type(dtype),
            k.load(k.inp(2), oc, dtype) if len(op.operands) > 2 else const(dtype, 0.0),
        )
        with loop_nest(k.b, [ic_per_g, *kern], name="w") as w:
            ic, kw = w[0], w[1:]
            pos = [
                k.b.add(k.b.sub(k.b.mul(oi, i64(s)), i64(p)), k.b.mul(ki, i64(d)))
                for oi, ki, s, p, d in zip(
                    o, kw, a["stride"], a["padding"], a["dilation"]
                )
            ]
            ok = None
            for q, size in zip(pos, ins):
                inb = k.b.and_(
                    k.b.icmp_signed(">=", q, i64(0)), k.b.icmp_signed("<", q, i64(size))
                )
                ok = inb if ok is None else k.b.and_(ok, inb)
            with k.b.if_then(ok):
                cin = k.b.add(k.b.mul(g, i64(ic_per_g)), ic)
                xv = k.load(k.inp(0), linear_offset(k.b, [nb, cin, *pos], sx), dtype)
                wv = k.load(k.inp(1), linear_offset(k.b, [oc, ic, *kw], sw), dtype)
                k.b.store(k.b.fadd(k.b.load(acc), k.b.fmul(xv, wv), flags=FAST), acc)
        k.store(k.b.load(acc), k.out(), linear_offset(k.b, idx, so), dtype)
