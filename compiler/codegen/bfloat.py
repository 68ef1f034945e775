"""bfloat16 elements: stored as 16-bit patterns, computed as float32 in registers.

llvmlite has no ``bfloat`` type, and x86 without AVX512-BF16 lowers LLVM's through
library calls; torch's CPU kernels compute bfloat16 in float anyway (opmath) and
round each result once. So a bf16 element is a float register (``scalar.llvm_type``),
an ``i16`` in memory (``scalar.mem_type``), widened exactly on load (the bits are a
float's upper half) and rounded on store as c10::BFloat16 does: to nearest, ties to
even, any NaN to the quiet NaN 0x7FC0.
"""

from __future__ import annotations

from llvmlite import ir

__all__ = ["widen", "narrow", "round_to_bf16"]

F32, I16, I32 = ir.FloatType(), ir.IntType(16), ir.IntType(32)


def widen(b: ir.IRBuilder, bits: ir.Value) -> ir.Value:
    """The float whose upper half is `bits` (i16): exact."""
    return b.bitcast(b.shl(b.zext(bits, I32), ir.Constant(I32, 16)), F32)


def narrow(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """The bf16 bit pattern (i16) of float `x`, rounded to nearest even."""
    u = b.bitcast(x, I32)
    lsb = b.and_(b.lshr(u, ir.Constant(I32, 16)), ir.Constant(I32, 1))
    rounded = b.lshr(
        b.add(u, b.add(lsb, ir.Constant(I32, 0x7FFF))), ir.Constant(I32, 16)
    )
    nan = b.fcmp_unordered("uno", x, x)
    return b.trunc(b.select(nan, ir.Constant(I32, 0x7FC0), rounded), I16)


def round_to_bf16(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """`x` (float) rounded to the nearest bf16 value, still a float."""
    return widen(b, narrow(b, x))
