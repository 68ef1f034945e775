"""Scalar semantics of elementwise ops in LLVM IR: one small emitter per op, in tables.

NaN behaves as in torch: relu/clamp/maximum keep NaN (selects on ordered compares, and
llvm.maximum/minimum which propagate NaN).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from llvmlite import ir

from ..errors import CodegenError
from ..ir.types import DType
from .bfloat import narrow, round_to_bf16, widen
from .mathfn import fast_erf, fast_exp, fast_tanh, is_f32
from .scalar_math import MATH_BINARY, MATH_UNARY, int_pow
from .scalar_unsigned import UNSIGNED_BINARY, UNSIGNED_UNARY, is_unsigned

__all__ = [
    "llvm_type",
    "mem_type",
    "to_reg",
    "to_mem",
    "UNARY",
    "BINARY",
    "unary",
    "binary",
    "emit_cast",
    "const",
    "exp",
]


def exp(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """e**x: the vectorizable polynomial for f32, the LLVM intrinsic otherwise."""
    return _exp(b, x)


F32, F64, F16 = ir.FloatType(), ir.DoubleType(), ir.HalfType()
I1, I8 = ir.IntType(1), ir.IntType(8)

_TYPES = {
    DType.f32: F32,
    DType.f64: F64,
    DType.f16: F16,
    DType.bf16: F32,  # computed in float, stored as 16 bits (bfloat.py)
    DType.i64: ir.IntType(64),
    DType.i32: ir.IntType(32),
    DType.i16: ir.IntType(16),
    DType.i8: I8,
    DType.u8: I8,
    DType.i1: I1,
}


def llvm_type(dtype: DType) -> ir.Type:
    """The register type of an element (i1 for booleans)."""
    try:
        return _TYPES[dtype]
    except KeyError:
        raise CodegenError(
            f"element type {dtype} is not supported by code generation"
        ) from None


def mem_type(dtype: DType) -> ir.Type:
    """The in-memory type of an element (booleans are bytes, as in torch; bfloat16
    is its 16 bits)."""
    if dtype is DType.bf16:
        return ir.IntType(16)
    return I8 if dtype is DType.i1 else llvm_type(dtype)


def to_reg(b: ir.IRBuilder, v: ir.Value, dtype: DType) -> ir.Value:
    if dtype is DType.bf16:
        return widen(b, v)
    return b.icmp_unsigned("!=", v, ir.Constant(I8, 0)) if dtype is DType.i1 else v


def to_mem(b: ir.IRBuilder, v: ir.Value, dtype: DType) -> ir.Value:
    if dtype is DType.bf16:
        return narrow(b, v)
    return b.zext(v, I8) if dtype is DType.i1 else v


def const(dtype: DType, value: float | int | bool) -> ir.Constant:
    t = llvm_type(dtype)
    if dtype.is_float:
        return ir.Constant(t, float(value))
    if dtype is DType.i1:  # any nonzero is True, NaN and inf too (torch's bool cast)
        return ir.Constant(t, int(bool(value)))
    return ir.Constant(t, int(value))


def _intrinsic(b: ir.IRBuilder, name: str, args: list[ir.Value]) -> ir.Value:
    """``llvm.<op>.<type>`` on scalars and vectors (GEMM epilogues compute on
    ``<16 x float>``; llvmlite's declare_intrinsic cannot name a vector overload)."""
    t = args[0].type
    fnty = ir.FunctionType(t, [t] * len(args))
    if not isinstance(t, ir.VectorType):
        return b.call(b.module.declare_intrinsic(name, [t], fnty), args)
    full = f"{name}.v{t.count}{t.element.intrinsic_name}"
    fn = b.module.globals.get(full) or ir.Function(b.module, fnty, full)
    return b.call(fn, args)


def _libm(b: ir.IRBuilder, name: str, x: ir.Value) -> ir.Value:
    """A libm function (erff, tanhf ...) of the argument's float type."""
    full = name + ("f" if x.type == F32 else "")
    fn = b.module.globals.get(full) or ir.Function(
        b.module, ir.FunctionType(x.type, [x.type]), full
    )
    return b.call(fn, [x])


def _is_f(v: ir.Value) -> bool:
    t = (
        v.type.element if isinstance(v.type, ir.VectorType) else v.type
    )  # GEMM epilogues
    return isinstance(t, (ir.FloatType, ir.DoubleType, ir.HalfType))


def _c(v: ir.Value, x: float) -> ir.Constant:
    return ir.Constant(v.type, x)


def _relu(b, x, attrs):
    if not _is_f(x):
        return b.select(
            b.icmp_signed("<", x, ir.Constant(x.type, 0)), ir.Constant(x.type, 0), x
        )
    return b.select(b.fcmp_ordered("<", x, _c(x, 0.0)), _c(x, 0.0), x)


def _abs(b, x, attrs):
    if _is_f(x):
        return _intrinsic(b, "llvm.fabs", [x])
    return b.select(b.icmp_signed("<", x, ir.Constant(x.type, 0)), b.neg(x), x)


def _exp(b, x, attrs=None):
    return fast_exp(b, x) if is_f32(x) else _intrinsic(b, "llvm.exp", [x])


def _tanh(b, x, attrs=None):
    return fast_tanh(b, x) if is_f32(x) else _libm(b, "tanh", x)


def _erf(b, x, attrs=None):
    return fast_erf(b, x) if is_f32(x) else _libm(b, "erf", x)


def _sigmoid(b, x, attrs=None):
    e = _exp(b, b.fneg(x))
    return b.fdiv(_c(x, 1.0), b.fadd(_c(x, 1.0), e))


def _gelu(b, x, attrs):
    half_x = b.fmul(x, _c(x, 0.5))
    if attrs.get("approximate") == "tanh":
        cube = b.fmul(b.fmul(x, x), x)
        inner = b.fmul(
            _c(x, math.sqrt(2.0 / math.pi)), b.fadd(x, b.fmul(cube, _c(x, 0.044715)))
        )
        return b.fmul(half_x, b.fadd(_c(x, 1.0), _tanh(b, inner)))
    erf = _erf(b, b.fmul(x, _c(x, 1.0 / math.sqrt(2.0))))
    return b.fmul(half_x, b.fadd(_c(x, 1.0), erf))


def _clamp(b, x, attrs):
    lo, hi = attrs.get("min"), attrs.get("max")
    if lo is not None:
        lo_c = _c(x, lo) if _is_f(x) else ir.Constant(x.type, int(lo))
        below = (
            b.fcmp_ordered("<", x, lo_c) if _is_f(x) else b.icmp_signed("<", x, lo_c)
        )
        x = b.select(below, lo_c, x)
    if hi is not None:
        hi_c = _c(x, hi) if _is_f(x) else ir.Constant(x.type, int(hi))
        above = (
            b.fcmp_ordered(">", x, hi_c) if _is_f(x) else b.icmp_signed(">", x, hi_c)
        )
        x = b.select(above, hi_c, x)
    return x


def _log1p(b, x, attrs=None):
    """log(1 + x) with the rounding of 1 + x undone (Goldberg's trick): exact near 0."""
    u = b.fadd(_c(x, 1.0), x)
    d = b.fsub(u, _c(x, 1.0))
    y = b.fmul(_intrinsic(b, "llvm.log", [u]), b.fdiv(x, d))
    y = b.select(b.fcmp_ordered("==", d, _c(x, 0.0)), x, y)
    return b.select(b.fcmp_ordered("==", x, _c(x, math.inf)), x, y)


def _expm1(b, x, attrs=None):
    """exp(x) - 1: Kahan's (u - 1) * x / log(u) for |x| < 0.5, where u - 1 cancels."""
    u = _exp(b, x)
    um1 = b.fsub(u, _c(x, 1.0))
    small = b.fdiv(b.fmul(um1, x), _intrinsic(b, "llvm.log", [u]))
    small = b.select(b.fcmp_ordered("==", u, _c(x, 1.0)), x, small)
    near0 = b.fcmp_ordered("<", _intrinsic(b, "llvm.fabs", [x]), _c(x, 0.5))
    return b.select(near0, small, um1)


UnaryEmitter = Callable[[ir.IRBuilder, ir.Value, dict], ir.Value]

UNARY: dict[str, UnaryEmitter] = {
    "cuvil.neg": lambda b, x, a: b.fneg(x) if _is_f(x) else b.neg(x),
    "cuvil.abs": _abs,
    "cuvil.relu": _relu,
    "cuvil.exp": _exp,
    "cuvil.log": lambda b, x, a: _intrinsic(b, "llvm.log", [x]),
    "cuvil.sqrt": lambda b, x, a: _intrinsic(b, "llvm.sqrt", [x]),
    "cuvil.rsqrt": lambda b, x, a: b.fdiv(_c(x, 1.0), _intrinsic(b, "llvm.sqrt", [x])),
    "cuvil.tanh": _tanh,
    "cuvil.sigmoid": _sigmoid,
    "cuvil.erf": _erf,
    "cuvil.sin": lambda b, x, a: _intrinsic(b, "llvm.sin", [x]),
    "cuvil.cos": lambda b, x, a: _intrinsic(b, "llvm.cos", [x]),
    "cuvil.reciprocal": lambda b, x, a: b.fdiv(_c(x, 1.0), x),
    "cuvil.silu": lambda b, x, a: b.fmul(x, _sigmoid(b, x)),
    "cuvil.floor": lambda b, x, a: _intrinsic(b, "llvm.floor", [x]),
    "cuvil.ceil": lambda b, x, a: _intrinsic(b, "llvm.ceil", [x]),
    "cuvil.log1p": _log1p,
    "cuvil.expm1": _expm1,
    "cuvil.gelu": _gelu,
    "cuvil.leaky_relu": lambda b, x, a: b.select(
        b.fcmp_ordered(">", x, _c(x, 0.0)), x, b.fmul(x, _c(x, a["negative_slope"]))
    ),
    "cuvil.logical_not": lambda b, x, a: b.not_(x),
    "cuvil.clamp": _clamp,
    **MATH_UNARY,
}


def _arith(fop: str, iop: str):
    def emit(b, x, y):
        return getattr(b, fop if _is_f(x) else iop)(x, y)

    return emit


def _cmp(op: str):
    def emit(b, x, y):
        if _is_f(x):
            return (
                b.fcmp_unordered(op, x, y) if op == "!=" else b.fcmp_ordered(op, x, y)
            )
        return b.icmp_signed(op, x, y)

    return emit


def _minmax(fname: str, icmp: str):
    def emit(b, x, y):
        if _is_f(x):
            return _intrinsic(b, fname, [x, y])
        return b.select(b.icmp_signed(icmp, x, y), x, y)

    return emit


def _pow(b, x, y):
    """x ** y; a constant y of 2, 3, 0.5, -0.5, -1 or -2 is computed as ATen's
    pow-by-scalar computes it (x*x, x*x*x, sqrt(x), 1/sqrt(x), 1/x, 1/(x*x)): the same
    numbers as eager, and vectorizable (``llvm.pow`` is a libm call per element)."""
    if not _is_f(x):
        if x.type == I1:
            raise CodegenError("pow of bools is not supported by code generation")
        return int_pow(b, x, y, signed=True)
    e = y.constant if isinstance(y, ir.Constant) else None
    one = ir.Constant(x.type, 1.0)
    if e == 2.0:
        return b.fmul(x, x)
    if e == 3.0:
        return b.fmul(b.fmul(x, x), x)
    if e in (0.5, -0.5):
        root = _intrinsic(b, "llvm.sqrt", [x])
        return root if e == 0.5 else b.fdiv(one, root)
    if e == -1.0:
        return b.fdiv(one, x)
    if e == -2.0:
        return b.fdiv(one, b.fmul(x, x))
    return _intrinsic(b, "llvm.pow", [x, y])


BinaryEmitter = Callable[[ir.IRBuilder, ir.Value, ir.Value], ir.Value]

BINARY: dict[str, BinaryEmitter] = {
    "cuvil.add": lambda b, x, y: (
        b.or_(x, y) if x.type == I1 else _arith("fadd", "add")(b, x, y)
    ),  # bools: True + True is True
    "cuvil.sub": _arith("fsub", "sub"),
    "cuvil.mul": _arith("fmul", "mul"),
    "cuvil.div": _arith("fdiv", "sdiv"),
    "cuvil.pow": _pow,
    "cuvil.maximum": _minmax("llvm.maximum", ">"),
    "cuvil.minimum": _minmax("llvm.minimum", "<"),
    "cuvil.eq": _cmp("=="),
    "cuvil.ne": _cmp("!="),
    "cuvil.lt": _cmp("<"),
    "cuvil.le": _cmp("<="),
    "cuvil.gt": _cmp(">"),
    "cuvil.ge": _cmp(">="),
    "cuvil.logical_and": lambda b, x, y: b.and_(x, y),
    "cuvil.logical_or": lambda b, x, y: b.or_(x, y),
    **MATH_BINARY,
}


def _in_float(emit):
    """`emit` on half floats computed as torch's CPU kernels do: in float, rounded to
    half once (half arithmetic op by op, and libm's float functions called with
    halves, lose precision eager does not)."""

    def widened(b: ir.IRBuilder, *args):
        wide = [b.fpext(a, F32) if a.type == F16 else a for a in args[:-1]]
        out = emit(b, *wide, args[-1])
        return b.fptrunc(out, F16) if out.type == F32 else out

    return widened


def unary(name: str, dtype: DType) -> UnaryEmitter:
    """The emitter of unary op `name` on an operand of `dtype` (unsigned ints differ)."""
    if is_unsigned(dtype) and name in UNSIGNED_UNARY:
        return UNSIGNED_UNARY[name]
    if dtype is DType.f16:
        return _in_float(UNARY[name])
    return UNARY[name]


def binary(name: str, dtype: DType) -> BinaryEmitter:
    """The emitter of binary op `name` on operands of `dtype` (unsigned ints differ)."""
    if is_unsigned(dtype) and name in UNSIGNED_BINARY:
        return UNSIGNED_BINARY[name]
    if dtype is DType.f16:
        emit = _in_float(lambda b, x, y, _: BINARY[name](b, x, y))
        return lambda b, x, y: emit(b, x, y, None)
    return BINARY[name]


def emit_cast(b: ir.IRBuilder, x: ir.Value, src: DType, dst: DType) -> ir.Value:
    """torch ``.to(dtype)`` conversion of one element (register types)."""
    if src is dst:
        return x
    to = llvm_type(dst)
    if dst is DType.i1:
        zero = ir.Constant(x.type, 0.0 if src.is_float else 0)
        return (
            b.fcmp_unordered("!=", x, zero)
            if src.is_float
            else b.icmp_unsigned("!=", x, zero)
        )
    if DType.bf16 in (src, dst):  # a float register, rounded to bf16 on the way in
        x = x if src is DType.bf16 else emit_cast(b, x, src, DType.f32)
        return (
            round_to_bf16(b, x)
            if dst is DType.bf16
            else emit_cast(b, x, DType.f32, dst)
        )
    if src.is_float and dst.is_float:
        return b.fptrunc(x, to) if _bits(dst) < _bits(src) else b.fpext(x, to)
    if src.is_float:
        return _float_to_int(b, x, src, to)
    unsigned = src in (DType.i1, DType.u8)
    if dst.is_float:
        return b.uitofp(x, to) if unsigned else b.sitofp(x, to)
    if _bits(dst) < _bits(src):
        return b.trunc(x, to)
    return b.zext(x, to) if unsigned else b.sext(x, to)


def _float_to_int(b: ir.IRBuilder, x: ir.Value, src: DType, to) -> ir.Value:
    """x86's conversion, which torch's CPU kernels inherit (C++ leaves it undefined): a
    NaN, an infinity or a value outside int64's range (int64) or int32's (narrower
    ints, which take the int32's low bits: uint8 of -5 is 251) gives INT_MIN. LLVM's
    fptosi is poison there, which O3 turned into anything (fuzz 7010594, 7022415)."""
    if src is DType.f16:  # the bounds below are not half floats
        x = _fext(b, x)
    width = 64 if to.width == 64 else 32
    wide = ir.IntType(width)
    wide_t = ir.VectorType(wide, x.type.count) if _vec(x) else wide
    lo, hi = _c(x, -(2.0 ** (width - 1))), _c(x, 2.0 ** (width - 1))
    inside = b.and_(b.fcmp_ordered(">=", x, lo), b.fcmp_ordered("<", x, hi))
    v = b.select(inside, b.fptosi(x, wide_t), ir.Constant(wide_t, -(2 ** (width - 1))))
    if width == to.width:
        return v
    return b.trunc(v, ir.VectorType(to, x.type.count) if _vec(x) else to)


def _vec(x: ir.Value) -> bool:
    return isinstance(x.type, ir.VectorType)


def _fext(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return b.fpext(x, ir.VectorType(F32, x.type.count) if _vec(x) else F32)


def _bits(d: DType) -> int:
    return {
        "f64": 64,
        "f32": 32,
        "f16": 16,
        "i64": 64,
        "i32": 32,
        "i16": 16,
        "i8": 8,
        "u8": 8,
        "i1": 1,
    }[d.value]
