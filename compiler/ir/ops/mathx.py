"""More elementwise math: inverse and hyperbolic trigonometry, logs and powers of 2 and
10, rounding, sign bits, float predicates, and binary ops with torch's exact semantics
(floor division, remainder, fmod, atan2, hypot, copysign, fmax/fmin, xlogy, ...).

Kept out of ``UNARY_OPS``/``BINARY_OPS`` (the IR fuzzer's op pool, tests/ir): several have
domains where NaN is the right answer. ``MATH_UNARY``/``MATH_BINARY`` index them.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..attributes import AttrSpec
from ..core import register_op
from ..types import DType, TensorType
from .binary import BinaryOp, LogicalOp
from .unary import UnaryOp

__all__ = ["MATH_UNARY", "MATH_BINARY", "PredicateOp"]


def _u(name: str, fn, *, floats_only: bool = True, doc: str = "") -> type[UnaryOp]:
    """A float -> float (or any -> same) unary op class, registered."""
    cls = type(
        f"{name.title().replace('_', '')}Op",
        (UnaryOp,),
        {
            "name": f"cuvil.{name}",
            "FN": staticmethod(fn),
            "FLOAT_ONLY": floats_only,
            "__doc__": doc or f"``cuvil.{name}(%x)``: torch.{name} elementwise.",
        },
    )
    return register_op(cls)


class PredicateOp(UnaryOp):
    """``%m = cuvil.isnan(%x)``: float -> i1."""

    def infer_types(self) -> list[TensorType]:
        (t,) = super().infer_types()
        return [TensorType(t.shape, DType.i1, t.layout)]


def _p(name: str, fn) -> type[UnaryOp]:
    cls = type(
        f"{name.title()}Op",
        (PredicateOp,),
        {
            "name": f"cuvil.{name}",
            "FN": staticmethod(fn),
            "__doc__": f"``cuvil.{name}(%x)``: float -> i1, torch.{name}.",
        },
    )
    return register_op(cls)


def _b(name: str, fn, *, floats_only: bool = True, base=BinaryOp) -> type[BinaryOp]:
    cls = type(
        f"{name.title().replace('_', '')}Op",
        (base,),
        {
            "name": f"cuvil.{name}",
            "FN": staticmethod(fn),
            "FLOAT_ONLY": floats_only,
            "__doc__": f"``cuvil.{name}(%x, %y)``: broadcasting torch.{name}.",
        },
    )
    return register_op(cls)


_FLOAT_UNARY = {
    "tan": torch.tan,
    "asin": torch.asin,
    "acos": torch.acos,
    "atan": torch.atan,
    "sinh": torch.sinh,
    "cosh": torch.cosh,
    "asinh": torch.asinh,
    "acosh": torch.acosh,
    "atanh": torch.atanh,
    "log2": torch.log2,
    "log10": torch.log10,
    "exp2": torch.exp2,
    "erfc": torch.erfc,
    "lgamma": torch.lgamma,
    "frac": torch.frac,
}
# identity on integers, as in torch
_ANY_UNARY = {"trunc": torch.trunc, "sign": torch.sign}


@register_op
class RoundOp(UnaryOp):
    """``cuvil.round(%x) {decimals = 0}``: half to even, at 10**-decimals."""

    name = "cuvil.round"
    FLOAT_ONLY = False
    ATTRS = {"decimals": AttrSpec("int", default=0)}

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        if not x.is_floating_point():  # torch's round.decimals has no integer kernel
            return x.clone()
        return torch.round(x, decimals=self.attrs["decimals"])


@register_op
class NanToNumOp(UnaryOp):
    """``cuvil.nan_to_num(%x) {nan, posinf, neginf}``: the replacements (floats)."""

    name = "cuvil.nan_to_num"
    ATTRS = {
        "nan": AttrSpec("float", default=0.0),
        "posinf": AttrSpec("float"),
        "neginf": AttrSpec("float"),
    }

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        a = self.attrs
        return torch.nan_to_num(x, a["nan"], a["posinf"], a["neginf"])


@register_op
class EluOp(UnaryOp):
    """``cuvil.elu(%x) {alpha, scale, input_scale}``: elu, selu and celu."""

    name = "cuvil.elu"
    ATTRS = {
        "alpha": AttrSpec("float", default=1.0),
        "scale": AttrSpec("float", default=1.0),
        "input_scale": AttrSpec("float", default=1.0),
    }

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        a = self.attrs
        neg = a["scale"] * a["alpha"] * torch.expm1(x * a["input_scale"])
        return torch.where(x >= 0, x * a["scale"], neg)


@register_op
class ShrinkOp(UnaryOp):
    """``cuvil.shrink(%x) {lambd, soft}``: softshrink (soft) or hardshrink."""

    name = "cuvil.shrink"
    ATTRS = {"lambd": AttrSpec("float", default=0.5), "soft": AttrSpec("bool")}

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        fn = F.softshrink if self.attrs["soft"] else F.hardshrink
        return fn(x, self.attrs["lambd"])


@register_op
class BitwiseNotOp(UnaryOp):
    """``cuvil.bitwise_not(%x)``: ``~x`` on integers (two's complement)."""

    name = "cuvil.bitwise_not"
    FLOAT_ONLY = False
    FN = staticmethod(torch.bitwise_not)

    def infer_types(self) -> list[TensorType]:
        if self.operand_types[0].dtype.is_float:
            raise self.fail(
                f"bitwise_not needs an integer operand, got {self.operand_types[0]}"
            )
        return super().infer_types()


MATH_UNARY: dict[str, type[UnaryOp]] = {
    **{f"cuvil.{n}": _u(n, f) for n, f in _FLOAT_UNARY.items()},
    **{f"cuvil.{n}": _u(n, f, floats_only=False) for n, f in _ANY_UNARY.items()},
    **{
        f"cuvil.{n}": _p(n, f)
        for n, f in {
            "isnan": torch.isnan,
            "isinf": torch.isinf,
            "signbit": torch.signbit,
        }.items()
    },
    "cuvil.round": RoundOp,
    "cuvil.nan_to_num": NanToNumOp,
    "cuvil.elu": EluOp,
    "cuvil.shrink": ShrinkOp,
    "cuvil.bitwise_not": BitwiseNotOp,
}

_FLOAT_BINARY = {
    "atan2": torch.atan2,
    "hypot": torch.hypot,
    "copysign": torch.copysign,
    "fmax": torch.fmax,
    "fmin": torch.fmin,
    "nextafter": torch.nextafter,
    "xlogy": torch.xlogy,
    "logaddexp": torch.logaddexp,
    "logaddexp2": torch.logaddexp2,
}
# torch's integer and float semantics both (ints: C division with floor correction)
_ANY_BINARY = {
    "floor_divide": torch.floor_divide,
    "trunc_divide": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "remainder": torch.remainder,
    "fmod": torch.fmod,
    "heaviside": torch.heaviside,
}


class BitwiseOp(BinaryOp):
    """Integer or bool operands (``&``, ``|``, ``^`` on the two's complement bits)."""

    def infer_types(self) -> list[TensorType]:
        if self.operand_types[0].dtype.is_float:
            raise self.fail(
                f"bitwise operands must be integer or bool, got {self.operand_types[0]}"
            )
        return super().infer_types()


MATH_BINARY: dict[str, type[BinaryOp]] = {
    **{f"cuvil.{n}": _b(n, f) for n, f in _FLOAT_BINARY.items()},
    **{f"cuvil.{n}": _b(n, f, floats_only=False) for n, f in _ANY_BINARY.items()},
    "cuvil.logical_xor": _b(
        "logical_xor", torch.logical_xor, floats_only=False, base=LogicalOp
    ),
    **{
        f"cuvil.bitwise_{n}": _b(f"bitwise_{n}", f, floats_only=False, base=BitwiseOp)
        for n, f in {
            "and": torch.bitwise_and,
            "or": torch.bitwise_or,
            "xor": torch.bitwise_xor,
        }.items()
    },
}
