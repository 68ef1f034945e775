"""Elementwise semantics that differ for unsigned integers (uint8, and bool as i1).

LLVM integers carry no sign: the signed emitters of scalar.py and scalar_math.py read
uint8 200 as -56 and bool True (i1 1) as -1, so order, division, remainder, abs, sign
and relu need their unsigned forms. `binary`/`unary` pick the emitter for an operand
dtype; every caller that knows the dtype goes through them.
"""

from __future__ import annotations

import torch
from llvmlite import ir

from ..errors import CodegenError
from ..ir.types import DType
from .scalar_math import int_pow

__all__ = ["is_unsigned", "icmp", "int_range", "UNSIGNED_BINARY", "UNSIGNED_UNARY"]


def is_unsigned(dtype: DType) -> bool:
    return dtype in (DType.u8, DType.i1)


def icmp(b: ir.IRBuilder, op: str, x: ir.Value, y: ir.Value, dtype: DType) -> ir.Value:
    """An integer compare in `dtype`'s order (unsigned for uint8 and bool)."""
    if is_unsigned(dtype):
        return b.icmp_unsigned(op, x, y)
    return b.icmp_signed(op, x, y)


def int_range(dtype: DType) -> tuple[int, int]:
    """(lowest, highest) value of an integer dtype; bool is 0..1."""
    if dtype is DType.i1:
        return 0, 1
    info = torch.iinfo(dtype.torch)
    return info.min, info.max


def _zero(x: ir.Value) -> ir.Constant:
    return ir.Constant(x.type, 0)


def _safe(b: ir.IRBuilder, y: ir.Value) -> ir.Value:
    """y, with 0 replaced by 1 (integer division by 0 is undefined behaviour in LLVM)."""
    return b.select(b.icmp_unsigned("==", y, _zero(y)), ir.Constant(y.type, 1), y)


def _cmp(op: str):
    return lambda b, x, y: b.icmp_unsigned(op, x, y)


def _pick(op: str):
    return lambda b, x, y: b.select(b.icmp_unsigned(op, x, y), x, y)


def _div(b, x, y):
    return b.udiv(x, _safe(b, y))


def _rem(b, x, y):
    return b.urem(x, _safe(b, y))


def _heaviside(b, x, y):
    nonzero = b.icmp_unsigned("!=", x, _zero(x))
    return b.select(nonzero, ir.Constant(x.type, 1), y)


UNSIGNED_BINARY = {
    "cuvil.pow": lambda b, x, y: int_pow(b, x, y, signed=False),
    "cuvil.div": _div,
    "cuvil.floor_divide": _div,  # quotients of non-negative numbers: floor is trunc
    "cuvil.trunc_divide": _div,
    "cuvil.remainder": _rem,
    "cuvil.fmod": _rem,
    "cuvil.maximum": _pick(">"),
    "cuvil.minimum": _pick("<"),
    "cuvil.lt": _cmp("<"),
    "cuvil.le": _cmp("<="),
    "cuvil.gt": _cmp(">"),
    "cuvil.ge": _cmp(">="),
    "cuvil.heaviside": _heaviside,
}


def _bound(x: ir.Value, value) -> ir.Constant:
    limit = (1 << x.type.width) - 1
    if value != int(value) or not 0 <= value <= limit:
        # eager raises "value cannot be converted to type uint8_t without overflow"
        raise CodegenError(
            f"clamp bound {value} is outside the unsigned range 0..{limit}",
            hint="clamp a wider integer or float tensor, or use a bound in range",
        )
    return ir.Constant(x.type, int(value))


def _clamp(b, x, attrs):
    lo, hi = attrs.get("min"), attrs.get("max")
    if lo is not None:
        lo_c = _bound(x, lo)
        x = b.select(b.icmp_unsigned("<", x, lo_c), lo_c, x)
    if hi is not None:
        hi_c = _bound(x, hi)
        x = b.select(b.icmp_unsigned(">", x, hi_c), hi_c, x)
    return x


UNSIGNED_UNARY = {
    "cuvil.abs": lambda b, x, a: x,
    "cuvil.relu": lambda b, x, a: x,
    "cuvil.sign": lambda b, x, a: b.zext(b.icmp_unsigned("!=", x, _zero(x)), x.type),
    "cuvil.clamp": _clamp,
}
