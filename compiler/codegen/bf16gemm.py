"""The bfloat16 GEMM's pieces: the dot product per instruction set, float32 -> bf16.

The GEMM itself is qgemm.py's loop nest with ``dtype="bf16"`` (float32 accumulators,
A rows of bf16 pairs broadcast as 32 bits, B packed ``[n/16][kp/2][16][2]``) or amx.py's
``tdpbf16ps`` tiles:

- ``avx512``: ``vdpbf16ps`` (``llvm.x86.avx512bf16.dpbf16ps.512``: acc += a[2l] * b[2l]
  + a[2l+1] * b[2l+1], products exact in float32, denormals flushed);
- ``portable``: each bf16 widened to float32 by a shift, two multiply-adds.

Activations are rounded to bf16 when they are packed (``to_bf16``: to nearest even, NaN
to 0x7FC0: torch's ``c10::BFloat16`` rounding), so every instruction set multiplies the
same values; sums differ only in their order (tolerances: docs/QUANT.md).
"""

from __future__ import annotations

import llvmlite.ir as ir

from .qsimd import BF16, I16, I32, V16F32, Vec

__all__ = ["dot_bf16", "to_bf16"]


def dot_bf16(v: Vec, isa: str, acc, a16, b16) -> ir.Value:
    """acc (<16 x float>) += the pairs of bf16 in a16 x b16 (<16 x i32> each)."""
    b = v.b
    if isa == "avx512":
        pairs = ir.VectorType(BF16, 32)
        args = [acc, b.bitcast(a16, pairs), b.bitcast(b16, pairs)]
        return v.call("llvm.x86.avx512bf16.dpbf16ps.512", V16F32, args)
    high = v.vconst(I32, -65536)  # 0xFFFF0000
    sixteen = v.vconst(I32, 16)

    def halves(x):
        even = b.bitcast(b.shl(x, sixteen), V16F32)
        odd = b.bitcast(b.and_(x, high), V16F32)
        return even, odd

    (a0, a1), (b0, b1) = halves(a16), halves(b16)
    acc = b.fadd(acc, b.fmul(a0, b0))
    return b.fadd(acc, b.fmul(a1, b1))


def to_bf16(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """float32 (scalar or vector) -> its bf16 bits (i16), round to nearest even."""
    vec = isinstance(x.type, ir.VectorType)

    def const(value, typ=I32):
        if vec:
            return ir.Constant(ir.VectorType(typ, x.type.count), [value] * x.type.count)
        return ir.Constant(typ, value)

    int_type = ir.VectorType(I32, x.type.count) if vec else I32
    bits = b.bitcast(x, int_type)
    lsb = b.and_(b.lshr(bits, const(16)), const(1))
    rounded = b.lshr(b.add(bits, b.add(lsb, const(0x7FFF))), const(16))
    nan = b.fcmp_unordered("uno", x, x)
    out = b.select(nan, const(0x7FC0), rounded)
    return b.trunc(out, ir.VectorType(I16, x.type.count) if vec else I16)
