"""Scalar emitters of the ops in ir/ops/mathx.py, with torch's CPU semantics.

Transcendentals call libm (``asinhf``, ``erfcf`` ...: within 2 ulp on glibc; torch's
CPU kernels use SLEEF or libm, within 1 ulp); half floats compute in float and round
back. Integer division guards its divisor: where torch raises ZeroDivisionError a
kernel cannot, so x // 0 gives 0 instead of undefined behaviour (docs/OPS.md).
"""

from __future__ import annotations

import math

from llvmlite import ir

F32, F64, F16 = ir.FloatType(), ir.DoubleType(), ir.HalfType()

__all__ = ["MATH_UNARY", "MATH_BINARY"]


def _c(v: ir.Value, x: float) -> ir.Constant:
    return ir.Constant(v.type, x)


def _is_f(v: ir.Value) -> bool:
    return isinstance(v.type, (ir.FloatType, ir.DoubleType, ir.HalfType))


def _intr(b: ir.IRBuilder, name: str, *args: ir.Value) -> ir.Value:
    t = args[0].type
    fn = b.module.declare_intrinsic(name, [t], ir.FunctionType(t, [t] * len(args)))
    return b.call(fn, list(args))


def _libm(b: ir.IRBuilder, name: str, *args: ir.Value) -> ir.Value:
    """libm's `name` (float or double form); halves go through float."""
    if args[0].type == F16:
        wide = [b.fpext(a, F32) for a in args]
        return b.fptrunc(_libm(b, name, *wide), F16)
    t = args[0].type
    full = name + ("f" if t == F32 else "")
    fn = b.module.globals.get(full) or ir.Function(
        b.module, ir.FunctionType(t, [t] * len(args)), full
    )
    return b.call(fn, list(args))


def _libm_fn(name: str):
    return lambda b, x, a: _libm(b, name, x)


def _sign(b, x, a):
    if not _is_f(x):
        pos = b.zext(b.icmp_signed(">", x, ir.Constant(x.type, 0)), x.type)
        return b.sub(pos, b.zext(b.icmp_signed("<", x, ir.Constant(x.type, 0)), x.type))
    pos = b.uitofp(b.fcmp_ordered(">", x, _c(x, 0.0)), x.type)
    return b.fsub(pos, b.uitofp(b.fcmp_ordered("<", x, _c(x, 0.0)), x.type))


def _round(b, x, a):
    if not _is_f(x):
        return x
    d = a.get("decimals", 0)
    if d == 0:
        return _intr(b, "llvm.roundeven", x)
    scale = _c(x, 10.0 ** abs(d))
    if d > 0:
        return b.fdiv(_intr(b, "llvm.roundeven", b.fmul(x, scale)), scale)
    return b.fmul(_intr(b, "llvm.roundeven", b.fdiv(x, scale)), scale)


def _signbit(b, x, a):
    bits = {F32: 32, F64: 64, F16: 16}[x.type]
    as_int = b.bitcast(x, ir.IntType(bits))
    return b.icmp_signed("<", as_int, ir.Constant(ir.IntType(bits), 0))


def _nan_to_num(b, x, a):
    inf = _c(x, math.inf)
    y = b.select(b.fcmp_unordered("uno", x, x), _c(x, a["nan"]), x)
    y = b.select(b.fcmp_ordered("==", x, inf), _c(x, a["posinf"]), y)
    return b.select(b.fcmp_ordered("==", x, b.fneg(inf)), _c(x, a["neginf"]), y)


def _elu(b, x, a):
    em1 = _libm(b, "expm1", b.fmul(x, _c(x, a["input_scale"])))
    neg = b.fmul(em1, _c(x, a["scale"] * a["alpha"]))
    pos = b.fmul(x, _c(x, a["scale"]))
    # torch takes x * scale from 0 up (so 0 and -0 stay themselves whatever alpha)
    return b.select(b.fcmp_ordered(">=", x, _c(x, 0.0)), pos, neg)


def _shrink(b, x, a):
    lam = _c(x, a["lambd"])
    above = b.fcmp_ordered(">", x, lam)
    below = b.fcmp_ordered("<", x, b.fneg(lam))
    zero = _c(x, 0.0)
    if not a["soft"]:  # NaN is kept, as by torch
        return b.select(
            b.or_(b.or_(above, below), b.fcmp_unordered("uno", x, x)), x, zero
        )
    inner = b.select(below, b.fadd(x, lam), zero)
    out = b.select(above, b.fsub(x, lam), inner)
    return b.select(b.fcmp_unordered("uno", x, x), x, out)


MATH_UNARY = {
    **{
        f"cuvil.{n}": _libm_fn(n)
        for n in (
            "tan",
            "asin",
            "acos",
            "atan",
            "sinh",
            "cosh",
            "asinh",
            "acosh",
            "atanh",
            "erfc",
            "lgamma",
        )
    },
    "cuvil.log2": lambda b, x, a: _intr(b, "llvm.log2", x),
    "cuvil.log10": lambda b, x, a: _intr(b, "llvm.log10", x),
    "cuvil.exp2": lambda b, x, a: _intr(b, "llvm.exp2", x),
    "cuvil.trunc": lambda b, x, a: _intr(b, "llvm.trunc", x) if _is_f(x) else x,
    "cuvil.frac": lambda b, x, a: b.fsub(x, _intr(b, "llvm.trunc", x)),
    "cuvil.sign": _sign,
    "cuvil.round": _round,
    "cuvil.isnan": lambda b, x, a: b.fcmp_unordered("uno", x, x),
    "cuvil.isinf": lambda b, x, a: b.fcmp_ordered(
        "==", _intr(b, "llvm.fabs", x), _c(x, math.inf)
    ),
    "cuvil.signbit": _signbit,
    "cuvil.bitwise_not": lambda b, x, a: b.not_(x),
    "cuvil.nan_to_num": _nan_to_num,
    "cuvil.elu": _elu,
    "cuvil.shrink": _shrink,
}


# ---- binary ------------------------------------------------------------------------------
def _safe_divisor(b, y):
    """y, with 0 replaced by 1 (integer division by 0 is undefined behaviour in LLVM)."""
    zero = ir.Constant(y.type, 0)
    return b.select(b.icmp_signed("==", y, zero), ir.Constant(y.type, 1), y)


def _sdiv_srem(b, x, y):
    """(x / y, x % y) truncating, defined everywhere: y == 0 divides by 1, and y == -1
    is x * -1 (wrapping: MIN // -1 is MIN, as torch) remainder 0, where x86's idiv
    traps on MIN / -1 (fuzz 7031121: a SIGFPE)."""
    y = _safe_divisor(b, y)
    minus_one = b.icmp_signed("==", y, ir.Constant(y.type, -1))
    y = b.select(minus_one, ir.Constant(y.type, 1), y)
    q = b.sdiv(x, y)
    q = b.select(minus_one, b.sub(ir.Constant(x.type, 0), q), q)
    return q, b.srem(x, y)


def _int_floor_div(b, x, y):
    q, r = _sdiv_srem(b, x, y)
    y = _safe_divisor(b, y)
    zero = ir.Constant(x.type, 0)
    fix = b.and_(
        b.icmp_signed("!=", r, zero),
        b.icmp_signed("!=", b.icmp_signed("<", r, zero), b.icmp_signed("<", y, zero)),
    )
    return b.sub(q, b.zext(fix, x.type))


def _float_floor_div(b, x, y):
    """torch's div_floor_floating: via fmod, so x // y agrees with x % y."""
    zero = _c(x, 0.0)
    mod = b.frem(x, y)
    div = b.fdiv(b.fsub(x, mod), y)
    wrong_sign = b.icmp_unsigned(
        "!=", b.fcmp_ordered("<", y, zero), b.fcmp_ordered("<", mod, zero)
    )
    fix = b.and_(b.fcmp_unordered("!=", mod, zero), wrong_sign)
    div = b.select(fix, b.fsub(div, _c(x, 1.0)), div)
    floor = _intr(b, "llvm.floor", div)
    up = b.fcmp_ordered(">", b.fsub(div, floor), _c(x, 0.5))
    floor = b.select(up, b.fadd(floor, _c(x, 1.0)), floor)
    signed_zero = _intr(b, "llvm.copysign", zero, b.fdiv(x, y))
    floor = b.select(b.fcmp_ordered("==", div, zero), signed_zero, floor)
    return b.select(b.fcmp_ordered("==", y, zero), b.fdiv(x, y), floor)


def _floor_divide(b, x, y):
    return _float_floor_div(b, x, y) if _is_f(x) else _int_floor_div(b, x, y)


def _trunc_divide(b, x, y):
    if _is_f(x):
        return _intr(b, "llvm.trunc", b.fdiv(x, y))
    return _sdiv_srem(b, x, y)[0]


def _remainder(b, x, y):
    if _is_f(x):
        mod, zero = b.frem(x, y), _c(x, 0.0)
        lt = (b.fcmp_ordered("<", mod, zero), b.fcmp_ordered("<", y, zero))
    else:
        mod, zero = _sdiv_srem(b, x, y)[1], ir.Constant(x.type, 0)
        lt = (b.icmp_signed("<", mod, zero), b.icmp_signed("<", y, zero))
    nonzero = (
        b.fcmp_ordered("!=", mod, zero) if _is_f(x) else b.icmp_signed("!=", mod, zero)
    )
    fix = b.and_(nonzero, b.icmp_unsigned("!=", *lt))
    return b.select(fix, b.fadd(mod, y) if _is_f(x) else b.add(mod, y), mod)


def _fmod(b, x, y):
    return b.frem(x, y) if _is_f(x) else _sdiv_srem(b, x, y)[1]


def _heaviside(b, x, y):
    if _is_f(x):
        zero = _c(x, 0.0)
        step = b.uitofp(b.fcmp_ordered(">", x, zero), x.type)
        return b.select(b.fcmp_ordered("==", x, zero), y, step)  # NaN -> 0, as torch
    zero = ir.Constant(x.type, 0)
    step = b.zext(b.icmp_signed(">", x, zero), x.type) if x.type.width > 1 else x
    return b.select(b.icmp_signed("==", x, zero), y, step)


def _xlogy(b, x, y):
    out = b.fmul(x, _intr(b, "llvm.log", y))
    out = b.select(b.fcmp_ordered("==", x, _c(x, 0.0)), _c(x, 0.0), out)
    return b.select(b.fcmp_unordered("uno", y, y), y, out)


def _logaddexp(base2: bool):
    def emit(b, x, y):
        m = _intr(b, "llvm.maxnum", x, y)
        d = b.fneg(_intr(b, "llvm.fabs", b.fsub(x, y)))
        if base2:  # torch's kernel compiles m + log1p(..) * (1/ln 2) to one fma:
            # logaddexp2(-1, -1) is -1.06e-08 there, not 0 (fuzz 7059369)
            tail = _libm(b, "log1p", _intr(b, "llvm.exp2", d))
            out = _intr(b, "llvm.fma", tail, _c(x, 1 / math.log(2)), m)
        else:
            out = b.fadd(m, _libm(b, "log1p", _libm(b, "exp", d)))
        same_inf = b.and_(
            b.fcmp_ordered("==", x, y),
            b.fcmp_ordered("==", _intr(b, "llvm.fabs", x), _c(x, math.inf)),
        )
        out = b.select(same_inf, x, out)
        nan = b.or_(b.fcmp_unordered("uno", x, x), b.fcmp_unordered("uno", y, y))
        return b.select(nan, b.fadd(x, y), out)

    return emit


MATH_BINARY = {
    "cuvil.atan2": lambda b, x, y: _libm(b, "atan2", x, y),
    "cuvil.hypot": lambda b, x, y: _libm(b, "hypot", x, y),
    "cuvil.nextafter": lambda b, x, y: _libm(b, "nextafter", x, y),
    "cuvil.copysign": lambda b, x, y: _intr(b, "llvm.copysign", x, y),
    "cuvil.fmax": lambda b, x, y: _intr(b, "llvm.maxnum", x, y),
    "cuvil.fmin": lambda b, x, y: _intr(b, "llvm.minnum", x, y),
    "cuvil.xlogy": _xlogy,
    "cuvil.logaddexp": _logaddexp(False),
    "cuvil.logaddexp2": _logaddexp(True),
    "cuvil.floor_divide": _floor_divide,
    "cuvil.trunc_divide": _trunc_divide,
    "cuvil.remainder": _remainder,
    "cuvil.fmod": _fmod,
    "cuvil.heaviside": _heaviside,
    "cuvil.logical_xor": lambda b, x, y: b.xor(x, y),
    "cuvil.bitwise_and": lambda b, x, y: b.and_(x, y),
    "cuvil.bitwise_or": lambda b, x, y: b.or_(x, y),
    "cuvil.bitwise_xor": lambda b, x, y: b.xor(x, y),
}


def int_pow(b: ir.IRBuilder, x: ir.Value, y: ir.Value, signed: bool) -> ir.Value:
    """x ** y of integers as torch computes it: square-and-multiply over y's bits,
    wrapping on overflow; a negative y (signed types) gives 1 for x == 1, +-1 for
    x == -1 (by y's parity) and 0 for every other x. Branch-free: vectors too."""
    ty = x.type
    bits = (ty.element if isinstance(ty, ir.VectorType) else ty).width
    one, zero = ir.Constant(ty, 1), ir.Constant(ty, 0)
    result, base, e = one, x, y
    for _ in range(bits - 1 if signed else bits):
        odd = b.icmp_unsigned("!=", b.and_(e, one), zero)
        result = b.select(odd, b.mul(result, base), result)
        base, e = b.mul(base, base), b.lshr(e, one)
    if not signed:
        return result
    minus_one = ir.Constant(ty, -1)
    odd_y = b.icmp_unsigned("!=", b.and_(y, one), zero)
    at_minus_one = b.select(odd_y, minus_one, one)
    negative = b.select(
        b.icmp_signed("==", x, one),
        one,
        b.select(b.icmp_signed("==", x, minus_one), at_minus_one, zero),
    )
    return b.select(b.icmp_signed("<", y, zero), negative, result)
