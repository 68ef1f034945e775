"""Lowering rules for elementwise math and casts (reductions: lower_reduce.py)."""

from __future__ import annotations

import math
import operator
from typing import Any

import torch
import torch.nn.functional as F

from ..errors import UnsupportedOpError
from ..ir import ops
from ..ir.core import Value
from ..ir.types import DType
from .context import (
    LazyTensor,
    LoweringContext,
    cuvil_dtype,
    refuse_extra,
    result_dtype,
)
from .registry import aten, lowers, named

__all__ = ["to_dtype", "emit_bin", "is_tensor"]


# ---- binary -------------------------------------------------------------------------------
def _binary(name: str, floating: bool = False):
    @named(f"binary[{name}]")
    def rule(cx: LoweringContext, a, b, *args, alpha=1, **kw):
        refuse_extra(cx, name, kw, "inplace")
        if args:  # aten.add.Tensor(a, b, alpha) positional form
            alpha = args[0]
        if not is_tensor(alpha) and alpha != 1 and result_dtype(a, b) is DType.i1:
            alpha = bool(alpha)  # torch reads alpha as a bool when the result is one
        half = result_dtype(a, b) if is_tensor(a) and is_tensor(b) else None
        if alpha != 1 and half in (DType.f16, DType.bf16) and not is_tensor(alpha):
            # torch: a + alpha * b in float, alpha in the 16-bit type, rounded once
            alpha = float(torch.tensor(alpha, dtype=half.torch))
            wb = cx.op(
                "cuvil.mul",
                cx.cast(cx.value(b), DType.f32),
                cx.scalar(alpha, DType.f32),
            )
            return cx.cast(cx.op(name, cx.cast(cx.value(a), DType.f32), wb), half)
        if alpha != 1:  # alpha * b in the result's type (a uint8 b wraps otherwise)
            wb = cx.cast(cx.value(b), result_dtype(a, b)) if is_tensor(b) else b
            b = emit_bin(cx, "cuvil.mul", wb, alpha) if is_tensor(b) else b * alpha
        if name == "cuvil.mul" and not is_tensor(a) and is_tensor(b):
            a, b = b, a  # 2 * x runs as x.__rmul__(2): the number is the 2nd operand
        wide = _opmath_scalar(cx, name, a, b) if name == "cuvil.mul" else None
        if wide is not None:
            return wide
        return emit_bin(cx, name, a, b, floating)

    return rule


def _opmath_scalar(cx: LoweringContext, name: str, a, b, floating: bool = False):
    """torch's CPU mul and div (true, floor, trunc) of a 16-bit float tensor by a
    one-element second operand of another type (a Python number, a 0-d float32
    tensor) compute in float32 with that operand unrounded, then round once: bf16 9984
    // 10000.0 is 0, not 9984 // bf16(10000.0) = 1 (fuzz 7054465). None elsewhere."""
    dtype = result_dtype(a, b)
    if floating and not dtype.is_float:
        return None
    if dtype not in (DType.f16, DType.bf16) or not is_tensor(a):
        return None
    if is_tensor(b):
        vb = cx.value(b)
        if math.prod(vb.type.shape) != 1 or vb.type.dtype is dtype:
            return None
        wide_b = cx.cast(vb, DType.f32)
    else:
        wide_b = cx.scalar(float(b), DType.f32)
    wide_a = cx.cast(cx.cast(cx.value(a), dtype), DType.f32)
    return cx.cast(cx.op(name, wide_a, wide_b), dtype)


def is_tensor(x: Any) -> bool:
    return isinstance(x, Value | LazyTensor | torch.Tensor)


def emit_bin(cx: LoweringContext, name: str, a, b, floating: bool = False) -> Value:
    _, (va, vb) = cx.promote(a, b, floating=floating)
    return cx.op(name, va, vb)


def _compare(name: str):
    @named(f"compare[{name}]")
    def rule(cx: LoweringContext, a, b, **kw):
        refuse_extra(cx, name, kw)
        return emit_bin(cx, name, a, b)

    return rule


lowers(operator.add, operator.iadd, torch.add, "add", "add_", aten.add, aten.add_)(
    _binary("cuvil.add")
)
lowers(operator.sub, operator.isub, torch.sub, torch.subtract, "sub", "sub_", aten.sub)(
    _binary("cuvil.sub")
)
lowers(
    operator.mul,
    operator.imul,
    torch.mul,
    torch.multiply,
    "mul",
    "mul_",
    aten.mul,
    aten.mul_,
)(_binary("cuvil.mul"))
lowers(torch.maximum, "maximum", aten.maximum)(_binary("cuvil.maximum"))
lowers(torch.minimum, "minimum", aten.minimum)(_binary("cuvil.minimum"))
for _name, _targets in {
    "eq": (operator.eq, torch.eq, "eq", aten.eq),
    "ne": (operator.ne, torch.ne, "ne", aten.ne),
    "lt": (operator.lt, torch.lt, "lt", aten.lt),
    "le": (operator.le, torch.le, "le", aten.le),
    "gt": (operator.gt, torch.gt, "gt", aten.gt),
    "ge": (operator.ge, torch.ge, "ge", aten.ge),
}.items():
    lowers(*_targets)(_compare(f"cuvil.{_name}"))


@lowers(
    operator.truediv,
    operator.itruediv,
    torch.div,
    torch.true_divide,
    "div",
    "div_",
    "true_divide",
    aten.div,
)
def _div(cx: LoweringContext, a, b, *, rounding_mode=None):
    if rounding_mode is None:
        wide = _opmath_scalar(cx, "cuvil.div", a, b, floating=True)
        return wide if wide is not None else emit_bin(cx, "cuvil.div", a, b, True)
    if rounding_mode in ("floor", "trunc"):  # torch's semantics: ir/ops/mathx.py
        name = f"cuvil.{rounding_mode}_divide"
        wide = _opmath_scalar(cx, name, a, b)
        return wide if wide is not None else emit_bin(cx, name, a, b)
    raise UnsupportedOpError(
        f"torch.div(rounding_mode={rounding_mode!r})",
        node=cx.node_name,
        where=cx.where(),
        hint="rounding_mode is None, 'floor' or 'trunc'",
    )


@lowers(operator.floordiv, torch.floor_divide, "floor_divide", aten.floor_divide)
def _floordiv(cx: LoweringContext, a, b):
    return _div(cx, a, b, rounding_mode="floor")


@lowers(aten.rsub, torch.rsub)
def _rsub(cx: LoweringContext, a, b, alpha=1):
    return _binary("cuvil.sub")(cx, b, a, alpha=alpha)


@lowers(operator.pow, torch.pow, "pow", aten.pow)
def _pow(cx: LoweringContext, a, b):
    if isinstance(b, int | float) and b == 2:  # in the promoted type: bool ** 2 is int
        v = cx.cast(cx.value(a), result_dtype(cx.value(a), b))
        return cx.op("cuvil.mul", v, v)
    if isinstance(b, int | float) and b == 0.5 and cx.value(a).type.dtype.is_float:
        return cx.op("cuvil.sqrt", a)
    return emit_bin(cx, "cuvil.pow", a, b)


@lowers(torch.logical_and, "logical_and", aten.logical_and)
def _logical_and(cx: LoweringContext, a, b):
    return cx.op("cuvil.logical_and", _as_bool(cx, a), _as_bool(cx, b))


@lowers(torch.logical_or, "logical_or", aten.logical_or)
def _logical_or(cx: LoweringContext, a, b):
    return cx.op("cuvil.logical_or", _as_bool(cx, a), _as_bool(cx, b))


@lowers(torch.logical_not, "logical_not", aten.logical_not)
def _logical_not(cx: LoweringContext, a):
    return cx.emit(ops.LogicalNotOp, _as_bool(cx, a))


def _bitwise(logical, name: str):
    """``&``, ``|``, ``^``, ``~``: the logical ops on bool tensors, ``cuvil.bitwise_*`` on
    integers; refused on floats, as torch does."""

    @named(f"bitwise[{name}]")
    def rule(cx: LoweringContext, *xs):
        dtype = result_dtype(*xs)
        if dtype is DType.i1:
            return logical(cx, *xs)
        if dtype.is_float:
            raise UnsupportedOpError(
                f"bitwise {name} on {dtype} tensors",
                node=cx.node_name,
                where=cx.where(),
                hint="torch defines & | ^ ~ on integer and bool tensors only",
            )
        if len(xs) == 1:
            return cx.op("cuvil.bitwise_not", cx.value(xs[0]))
        return emit_bin(cx, f"cuvil.bitwise_{name}", *xs)

    return rule


lowers(operator.and_, torch.bitwise_and, "bitwise_and", aten.bitwise_and, aten.__and__)(
    _bitwise(_logical_and, "and")
)
lowers(operator.or_, torch.bitwise_or, "bitwise_or", aten.bitwise_or, aten.__or__)(
    _bitwise(_logical_or, "or")
)
lowers(operator.xor, torch.bitwise_xor, "bitwise_xor", aten.bitwise_xor, aten.__xor__)(
    _bitwise(lambda cx, a, b: cx.op("cuvil.logical_xor", a, b), "xor")
)
lowers(operator.invert, torch.bitwise_not, "bitwise_not", aten.bitwise_not)(
    _bitwise(_logical_not, "not")
)


def _as_bool(cx: LoweringContext, x) -> Value:
    v = cx.value(x, DType.i1)
    return (
        v
        if v.type.dtype is DType.i1
        else cx.op("cuvil.ne", v, cx.scalar(0, v.type.dtype))
    )


# ---- unary --------------------------------------------------------------------------------
_UNARY = {
    "neg": (operator.neg, torch.neg, torch.negative, "neg", aten.neg),
    "abs": (abs, operator.abs, torch.abs, "abs", aten.abs),  # fx records abs(x) so
    "relu": (torch.relu, F.relu, "relu", "relu_", aten.relu, aten.relu_),
    "exp": (torch.exp, "exp", aten.exp),
    "log": (torch.log, "log", aten.log),
    "sqrt": (torch.sqrt, "sqrt", aten.sqrt),
    "rsqrt": (torch.rsqrt, "rsqrt", aten.rsqrt),
    "tanh": (torch.tanh, F.tanh, "tanh", aten.tanh),
    "sigmoid": (torch.sigmoid, F.sigmoid, "sigmoid", aten.sigmoid),
    "erf": (torch.erf, torch.special.erf, "erf", aten.erf),
    "sin": (torch.sin, "sin", aten.sin),
    "cos": (torch.cos, "cos", aten.cos),
    "reciprocal": (torch.reciprocal, "reciprocal", aten.reciprocal),
    "silu": (F.silu, aten.silu),
    "floor": (torch.floor, "floor", aten.floor),
    "ceil": (torch.ceil, "ceil", aten.ceil),
}


_INT_IDENTITY = {"cuvil.floor", "cuvil.ceil"}


def _unary(name: str):
    cls = ops.UNARY_OPS[name]

    @named(f"unary[{name}]")
    def rule(cx: LoweringContext, x, *_, **kw):
        refuse_extra(cx, name, kw, "inplace")
        v = cx.value(x)
        if name in _INT_IDENTITY and not v.type.dtype.is_float:
            return v  # torch.floor of an integer tensor is that tensor, not a float
        if cls.FLOAT_ONLY and not v.type.dtype.is_float:
            v = cx.cast(v, DType.from_torch(torch.get_default_dtype()))
        return cx.emit(cls, v)

    return rule


for _name, _targets in _UNARY.items():
    lowers(*_targets)(_unary(f"cuvil.{_name}"))


@lowers(F.gelu, "gelu", aten.gelu)
def _gelu(cx: LoweringContext, x, approximate="none"):
    return cx.emit(ops.GeluOp, x, approximate=approximate)


@lowers(F.leaky_relu, aten.leaky_relu)
def _leaky_relu(cx: LoweringContext, x, negative_slope=0.01, inplace=False):
    return cx.emit(ops.LeakyReluOp, x, negative_slope=float(negative_slope))


@lowers(torch.clamp, torch.clip, "clamp", "clip", "clamp_", aten.clamp, aten.clip)
def _clamp(cx: LoweringContext, x, min=None, max=None):
    bounds = [b for b in (min, max) if b is not None]
    if is_tensor(min) or is_tensor(max):
        # the promotion of all three together (fuzz 7080064; not pairwise)
        v = cx.cast(cx.value(x), result_dtype(x, *bounds))
        v = v if min is None else emit_bin(cx, "cuvil.maximum", v, min)
        return v if max is None else emit_bin(cx, "cuvil.minimum", v, max)
    v = cx.value(x)
    v = cx.cast(v, result_dtype(v, *bounds))
    if any(isinstance(b, float) and math.isnan(b) for b in bounds):
        return emit_bin(cx, "cuvil.add", v, math.nan)  # torch: a NaN bound gives NaN
    if min is not None and max is not None and min > max:
        min = max  # torch: min(max(x, min), max) is max everywhere (NaN stays NaN)
    return cx.emit(ops.ClampOp, v, min=min, max=max)


@lowers(torch.clamp_min, "clamp_min", aten.clamp_min)
def _clamp_min(cx: LoweringContext, x, min):
    return _clamp(cx, x, min=min)


@lowers(torch.clamp_max, "clamp_max", aten.clamp_max)
def _clamp_max(cx: LoweringContext, x, max):
    return _clamp(cx, x, max=max)


@lowers(F.relu6, aten.relu6)
def _relu6(cx: LoweringContext, x, inplace=False):
    return cx.emit(ops.ClampOp, x, min=0.0, max=6.0)


@lowers(F.hardtanh, aten.hardtanh)
def _hardtanh(cx: LoweringContext, x, min_val=-1.0, max_val=1.0, inplace=False):
    """clamp in x's own type (an integer hardtanh stays integer), with clamp's
    answers for min > max (max) and a NaN bound (NaN)."""
    lo, hi = float(min_val), float(max_val)
    if math.isnan(lo) or math.isnan(hi):
        return emit_bin(cx, "cuvil.add", cx.value(x), math.nan)
    return cx.emit(ops.ClampOp, x, min=min(lo, hi), max=hi)


@lowers(torch.square, "square", aten.square)
def _square(cx: LoweringContext, x):
    return _pow(cx, x, 2)


@lowers("where")
def _where_method(cx: LoweringContext, x, cond, other):
    """``x.where(cond, y)`` is ``torch.where(cond, x, y)``: self comes first."""
    return _where(cx, cond, x, other)


@lowers(torch.where, aten.where)
def _where(cx: LoweringContext, cond, a=None, b=None):
    if a is None:
        raise UnsupportedOpError(
            "torch.where(cond) with one argument (data-dependent shape)",
            node=cx.node_name,
            where=cx.where(),
        )
    _, (va, vb) = cx.promote(a, b)
    return cx.emit(ops.WhereOp, _as_bool(cx, cond), va, vb)


@lowers("masked_fill", "masked_fill_", torch.masked_fill, aten.masked_fill)
def _masked_fill(cx: LoweringContext, x, mask, value):
    v = cx.value(x)
    fill = cx.cast(cx.value(value, v.type.dtype), v.type.dtype)
    return cx.emit(ops.WhereOp, _as_bool(cx, mask), fill, v)


# ---- casts and identities ----------------------------------------------------------------
def to_dtype(cx: LoweringContext, x, dtype: torch.dtype) -> Value:
    return cx.cast(cx.value(x), cuvil_dtype(dtype))


@lowers("to", aten.to, aten._to_copy, "type")
def _to(cx: LoweringContext, x, *args, **kwargs):
    dtype = kwargs.get("dtype")
    for i, a in enumerate(args):
        if isinstance(a, torch.dtype):
            dtype = a
        elif isinstance(a, Value):
            dtype = a.type.dtype.torch
        elif isinstance(a, LazyTensor | torch.Tensor):  # x.to(self.weight): a constant
            dtype = (a.data if isinstance(a, LazyTensor) else a).dtype
        elif i == 0 and isinstance(a, bool):  # x.to(False): torch reads torch.bool
            dtype = torch.bool
    return cx.value(x) if dtype is None else to_dtype(cx, x, dtype)


for _method, _dtype in {
    "float": torch.float32,
    "double": torch.float64,
    "half": torch.float16,
    "bfloat16": torch.bfloat16,
    "long": torch.int64,
    "int": torch.int32,
    "bool": torch.bool,
}.items():
    lowers(_method)(
        named(f"cast[{_dtype}]")(lambda cx, x, *_, _d=_dtype, **__: to_dtype(cx, x, _d))
    )


@lowers("type_as", aten.type_as)
def _type_as(cx: LoweringContext, x, other):
    return cx.cast(cx.value(x), cx.value(other).type.dtype)


@lowers(
    "contiguous",
    "clone",
    "detach",
    torch.clone,
    torch.detach,
    aten.clone,
    aten.alias,
    aten.detach,
    aten.lift_fresh_copy,
    aten.contiguous,
    "cpu",
    operator.pos,  # +x
    torch.positive,
    "positive",
    aten.positive,
)
def _identity(cx: LoweringContext, x, *_, **__):
    return cx.value(x)


@lowers(
    F.dropout,
    F.dropout1d,
    F.dropout2d,
    F.alpha_dropout,
    torch.dropout,
    aten.dropout,
    aten.feature_dropout,
    aten.alpha_dropout,
    aten.feature_alpha_dropout,
    "dropout",
)
def _dropout(cx: LoweringContext, x, p=0.5, training=False, *_, **kw):
    if kw.get("train", training):
        raise UnsupportedOpError(
            "dropout in training mode (call model.eval() first)",
            node=cx.node_name,
            where=cx.where(),
        )
    return cx.value(x)


@lowers(math.sqrt)
def _math_sqrt(cx: LoweringContext, x):
    return cx.op("cuvil.sqrt", x)
