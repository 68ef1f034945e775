"""Vectorizable float32 exp, erf and tanh written in LLVM IR (no libm calls in loops).

Each works on a float or on a ``<N x float>`` (GEMM epilogues compute on vectors).

LLVM turns ``llvm.exp`` in a vectorized loop into one ``expf`` call per lane (~3 ns per
element here); these straight-line versions vectorize into AVX-512 code instead.
Accuracy (measured in tests/codegen/test_mathfn.py against float64):
exp: relative error < 4e-7 over [-87, 88], 0 and inf at the ends, NaN kept;
erf: absolute error < 5e-7 (Abramowitz & Stegun 7.1.26; its Taylor series below 0.25);
tanh: absolute error < 3e-7 (odd polynomial near 0, 1 - 2/(exp(2|x|) + 1) elsewhere).
Doubles and halves use the LLVM intrinsics / libm instead.
"""

from __future__ import annotations

import math

from llvmlite import ir

__all__ = ["fast_exp", "fast_erf", "fast_tanh", "is_f32"]

F32 = ir.FloatType()
I32 = ir.IntType(32)

_LOG2E = 1.4426950408889634
_LN2_HI = 0.693145751953125
_LN2_LO = 1.428606765330187e-06
_EXP_POLY = [1.0, 1.0, 0.5, 1 / 6, 1 / 24, 1 / 120, 1 / 720, 1 / 5040]


def is_f32(v: ir.Value) -> bool:
    t = v.type
    return t == F32 or (isinstance(t, ir.VectorType) and t.element == F32)


def _c(t: ir.Type, x: float) -> ir.Constant:
    """A float constant of type `t` (llvmlite splats it over a vector type)."""
    return ir.Constant(t, x)


def _ints(t: ir.Type) -> ir.Type:
    """i32 of the shape of `t` (scalar or vector)."""
    return ir.VectorType(I32, t.count) if isinstance(t, ir.VectorType) else I32


def _intrinsic(b: ir.IRBuilder, name: str, t: ir.Type, arity: int) -> ir.Function:
    """``llvm.<op>.f32`` or ``llvm.<op>.v16f32`` (llvmlite cannot name vector overloads)."""
    suffix = f"v{t.count}f32" if isinstance(t, ir.VectorType) else "f32"
    full = f"{name}.{suffix}"
    existing = b.module.globals.get(full)
    return existing or ir.Function(b.module, ir.FunctionType(t, [t] * arity), full)


def _horner(b: ir.IRBuilder, x: ir.Value, coeffs: list[float]) -> ir.Value:
    """coeffs[0] + x*(coeffs[1] + x*(...)) with fused multiply-adds."""
    t = x.type
    fma = _intrinsic(b, "llvm.fma", t, 3)
    acc = _c(t, coeffs[-1])
    for c in reversed(coeffs[:-1]):
        acc = b.call(fma, [acc, x, _c(t, c)])
    return acc


def _pow2(b: ir.IRBuilder, n: ir.Value, t: ir.Type) -> ir.Value:
    """2**n for an i32 n in [-126, 127], built from the exponent bits."""
    bits = b.shl(b.add(n, ir.Constant(n.type, 127)), ir.Constant(n.type, 23))
    return b.bitcast(bits, t)


def fast_exp(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    t = x.type
    rint = _intrinsic(b, "llvm.rint", t, 1)
    xc = b.select(b.fcmp_ordered(">", x, _c(t, 88.8)), _c(t, 88.8), x)
    xc = b.select(b.fcmp_ordered("<", xc, _c(t, -104.0)), _c(t, -104.0), xc)
    nf = b.call(rint, [b.fmul(xc, _c(t, _LOG2E))])
    r = b.fsub(b.fsub(xc, b.fmul(nf, _c(t, _LN2_HI))), b.fmul(nf, _c(t, _LN2_LO)))
    p = _horner(b, r, _EXP_POLY)
    n = b.fptosi(nf, _ints(t))
    half = b.ashr(
        n, ir.Constant(n.type, 1)
    )  # split 2**n in two factors so n may reach -151
    y = b.fmul(b.fmul(p, _pow2(b, half, t)), _pow2(b, b.sub(n, half), t))
    y = b.select(b.fcmp_ordered(">", x, _c(t, 88.72283)), _c(t, math.inf), y)
    y = b.select(b.fcmp_ordered("<", x, _c(t, -103.97208)), _c(t, 0.0), y)
    return b.select(b.fcmp_unordered("uno", x, x), x, y)


_ERF_A = [0.0, 0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429]
_ERF_SMALL = [
    c * 2 / math.sqrt(math.pi) for c in (1.0, -1 / 3, 1 / 10, -1 / 42, 1 / 216)
]


def fast_erf(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    ty = x.type
    fabs = _intrinsic(b, "llvm.fabs", ty, 1)
    copysign = _intrinsic(b, "llvm.copysign", ty, 2)
    ax = b.call(fabs, [x])
    t = b.fdiv(_c(ty, 1.0), b.fadd(_c(ty, 1.0), b.fmul(ax, _c(ty, 0.3275911))))
    poly = _horner(b, t, _ERF_A)
    y = b.fsub(_c(ty, 1.0), b.fmul(poly, fast_exp(b, b.fneg(b.fmul(ax, ax)))))
    small = b.fmul(ax, _horner(b, b.fmul(ax, ax), _ERF_SMALL))  # no cancellation near 0
    y = b.select(b.fcmp_ordered("<", ax, _c(ty, 0.25)), small, y)
    return b.call(copysign, [y, x])


_TANH_SMALL = [1.0, -1 / 3, 2 / 15, -17 / 315]


def fast_tanh(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    t = x.type
    fabs = _intrinsic(b, "llvm.fabs", t, 1)
    copysign = _intrinsic(b, "llvm.copysign", t, 2)
    ax = b.call(fabs, [x])
    e = fast_exp(b, b.fmul(ax, _c(t, 2.0)))
    big = b.fsub(_c(t, 1.0), b.fdiv(_c(t, 2.0), b.fadd(e, _c(t, 1.0))))
    small = b.fmul(ax, _horner(b, b.fmul(ax, ax), _TANH_SMALL))
    y = b.select(b.fcmp_ordered("<", ax, _c(t, 0.0625)), small, big)
    return b.select(b.fcmp_unordered("uno", x, x), x, b.call(copysign, [y, x]))
