"""Lowering rules for the elementwise math of ir/ops/mathx.py: inverse and hyperbolic
trigonometry, log2/log10/exp2, erfc/lgamma, rounding, sign bits, float predicates,
nan_to_num, elu/selu/celu, soft/hard shrink, and the binary ops with torch's exact
semantics (atan2, hypot, copysign, fmax/fmin, nextafter, xlogy, logaddexp[2],
remainder, fmod, heaviside, logical_xor)."""

from __future__ import annotations

import operator

import torch
import torch.nn.functional as F

from ..ir import ops
from ..ir.types import DType
from .context import LoweringContext, refuse_extra, result_dtype
from .lower_math import _as_bool, emit_bin
from .registry import aten, lowers, named

_FLOAT = DType.from_torch(torch.get_default_dtype())


def _unary(name: str):
    cls = ops.MATH_UNARY[name]

    @named(f"unary[{name}]")
    def rule(cx: LoweringContext, x, **kw):
        refuse_extra(cx, name, kw)
        v = cx.value(x)
        if cls.FLOAT_ONLY and not v.type.dtype.is_float:
            v = cx.cast(v, _FLOAT)
        return cx.emit(cls, v)

    return rule


def _t(name: str, *aliases: str) -> tuple:
    """The torch function, the Tensor method and the aten packet of `name` (and of its
    numpy-style aliases: arcsin ...)."""
    out: list = []
    for n in (name, *aliases):
        out += [getattr(torch, n), n, getattr(aten, n)]
    return tuple(out)


for _name, _targets in {
    "tan": _t("tan"),
    "asin": _t("asin", "arcsin"),
    "acos": _t("acos", "arccos"),
    "atan": _t("atan", "arctan"),
    "sinh": _t("sinh"),
    "cosh": _t("cosh"),
    "asinh": _t("asinh", "arcsinh"),
    "acosh": _t("acosh", "arccosh"),
    "atanh": _t("atanh", "arctanh"),
    "log2": _t("log2"),
    "log10": _t("log10"),
    "exp2": (*_t("exp2"), torch.special.exp2, aten.special_exp2),
    "erfc": (*_t("erfc"), torch.special.erfc, aten.special_erfc),
    "lgamma": (*_t("lgamma"), torch.special.gammaln, aten.special_gammaln),
    "frac": _t("frac"),
    "trunc": _t("trunc", "fix"),
    "sign": _t("sign"),
    "isnan": _t("isnan"),
    "isinf": _t("isinf"),
    "signbit": _t("signbit"),
}.items():
    lowers(*_targets)(_unary(f"cuvil.{_name}"))


@lowers(torch.sgn, "sgn", aten.sgn)
def _sgn(cx: LoweringContext, x):
    return _unary("cuvil.sign")(cx, x)


@lowers(torch.round, "round", aten.round, torch.special.round)
def _round(cx: LoweringContext, x, *, decimals: int = 0):
    v = cx.value(x)
    if decimals and not v.type.dtype.is_float:
        v = cx.cast(v, _FLOAT)
    return cx.emit(ops.MATH_UNARY["cuvil.round"], v, decimals=int(decimals))


@lowers(torch.nan_to_num, "nan_to_num", aten.nan_to_num)
def _nan_to_num(cx: LoweringContext, x, nan=0.0, posinf=None, neginf=None):
    v = cx.value(x)
    if not v.type.dtype.is_float:  # integers have no NaN or infinity
        return v
    info = torch.finfo(v.type.dtype.torch)
    return cx.emit(
        ops.MATH_UNARY["cuvil.nan_to_num"],
        v,
        nan=float(0.0 if nan is None else nan),
        posinf=float(info.max if posinf is None else posinf),
        neginf=float(info.min if neginf is None else neginf),
    )


def _elu_op(cx: LoweringContext, x, alpha: float, scale: float, input_scale: float):
    v = cx.value(x)
    v = v if v.type.dtype.is_float else cx.cast(v, _FLOAT)
    return cx.emit(
        ops.MATH_UNARY["cuvil.elu"],
        v,
        alpha=float(alpha),
        scale=float(scale),
        input_scale=float(input_scale),
    )


@lowers(aten.elu)
def _elu(cx: LoweringContext, x, alpha=1.0, scale=1.0, input_scale=1.0):
    return _elu_op(cx, x, alpha, scale, input_scale)


@lowers(F.elu)
def _f_elu(cx: LoweringContext, x, alpha=1.0, inplace=False):
    """F.elu(input, alpha, inplace): its third argument is not aten's scale."""
    return _elu_op(cx, x, alpha, 1.0, 1.0)


@lowers(F.selu, torch.selu, aten.selu)
def _selu(cx: LoweringContext, x, inplace=False):
    # the constants of Klambauer et al., as torch defines them
    return _elu_op(cx, x, 1.6732632423543772, 1.0507009873554805, 1.0)


@lowers(F.celu, torch.celu, aten.celu)
def _celu(cx: LoweringContext, x, alpha=1.0, inplace=False):
    return _elu_op(cx, x, alpha, 1.0, 1.0 / alpha)


def _shrink(soft: bool):
    @named("softshrink" if soft else "hardshrink")
    def rule(cx: LoweringContext, x, lambd=0.5):
        v = cx.value(x)
        return cx.emit(ops.MATH_UNARY["cuvil.shrink"], v, lambd=float(lambd), soft=soft)

    return rule


lowers(F.softshrink, aten.softshrink)(_shrink(True))
# hardshrink keeps lowering through PyTorch's decomposition (tests/frontend's example of
# one); cuvil.shrink {soft = false} is its native form for a rule that wants it


# ---- binary ------------------------------------------------------------------------------
#: ops torch also defines on integers, where they are plain maximum and minimum
_INT_FORMS = {"cuvil.fmax": "cuvil.maximum", "cuvil.fmin": "cuvil.minimum"}


def _binary(name: str):
    floating = ops.MATH_BINARY[name].FLOAT_ONLY

    @named(f"binary[{name}]")
    def rule(cx: LoweringContext, a, b, **kw):
        refuse_extra(cx, name, kw)
        if name in _INT_FORMS and not result_dtype(cx.value(a), b).is_float:
            return emit_bin(cx, _INT_FORMS[name], a, b)  # integers have no NaN
        return emit_bin(cx, name, a, b, floating)

    return rule


for _name, _targets in {
    "atan2": _t("atan2", "arctan2"),
    "hypot": _t("hypot"),
    "copysign": _t("copysign"),
    "fmax": _t("fmax"),
    "fmin": _t("fmin"),
    "nextafter": _t("nextafter"),
    "xlogy": (*_t("xlogy"), torch.special.xlogy, aten.special_xlogy),
    "logaddexp": _t("logaddexp"),
    "logaddexp2": _t("logaddexp2"),
    "remainder": (operator.mod, *_t("remainder")),
    "fmod": _t("fmod"),
    "heaviside": _t("heaviside"),
}.items():
    lowers(*_targets)(_binary(f"cuvil.{_name}"))


@lowers(torch.logical_xor, "logical_xor", aten.logical_xor)
def _logical_xor(cx: LoweringContext, a, b):
    return cx.op("cuvil.logical_xor", _as_bool(cx, a), _as_bool(cx, b))
