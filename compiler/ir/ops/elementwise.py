"""Elementwise ops: unary math, broadcasting binary ops, comparisons, where, clamp, cast.

Binary ops take operands of one element type (the frontends insert ``cuvil.cast`` where torch
would promote) and broadcast NumPy-style. Scalars are 0-d ``cuvil.constant`` operands.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F

from ..attributes import AttrSpec
from ..core import Operation, Trait, register_op
from ..types import DType, TensorType, broadcast_shapes
from .layout import ANY_LAYOUT

__all__ = [
    "UnaryOp",
    "BinaryOp",
    "CompareOp",
    "UNARY_OPS",
    "BINARY_OPS",
    "WhereOp",
    "ClampOp",
    "CastOp",
]

_EW = frozenset({Trait.PURE, Trait.ELEMENTWISE})
_BIN = frozenset({Trait.PURE, Trait.ELEMENTWISE, Trait.BROADCASTING})


def _layout_of(op: Operation, types: list[TensorType]) -> str:
    layouts = {t.layout for t in types if t.rank > 0}
    if len(layouts) > 1:
        raise op.fail(f"operands have different layouts: {', '.join(sorted(layouts))}")
    return layouts.pop() if layouts else "contiguous"


class UnaryOp(Operation):
    """``%y = cuvil.exp(%x)``: y[i] = f(x[i]); same type as x."""

    OPERANDS = ("x",)
    TRAITS = _EW
    LAYOUTS = ANY_LAYOUT
    FLOAT_ONLY = True
    FN: Callable[[torch.Tensor], torch.Tensor]

    def infer_types(self) -> list[TensorType]:
        (t,) = self.operand_types
        if self.FLOAT_ONLY and not t.dtype.is_float:
            raise self.fail(
                f"operand must be a float tensor, got {t} (insert cuvil.cast)"
            )
        return [t]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return type(self).FN(x)


def _unary(name: str, fn, float_only: bool = True, cls_name: str | None = None):
    cls = type(
        cls_name
        or "".join(p.capitalize() for p in name.split(".")[1].split("_")) + "Op",
        (UnaryOp,),
        {"name": name, "FN": staticmethod(fn), "FLOAT_ONLY": float_only},
    )
    return register_op(cls)


UNARY_OPS: dict[str, type[UnaryOp]] = {
    op.name: op
    for op in [
        _unary("cuvil.neg", torch.neg, float_only=False),
        _unary("cuvil.abs", torch.abs, float_only=False),
        _unary("cuvil.relu", torch.relu, float_only=False),
        _unary("cuvil.exp", torch.exp),
        _unary("cuvil.log", torch.log),
        _unary("cuvil.sqrt", torch.sqrt),
        _unary("cuvil.rsqrt", torch.rsqrt),
        _unary("cuvil.tanh", torch.tanh),
        _unary("cuvil.sigmoid", torch.sigmoid),
        _unary("cuvil.erf", torch.erf),
        _unary("cuvil.sin", torch.sin),
        _unary("cuvil.cos", torch.cos),
        _unary("cuvil.reciprocal", torch.reciprocal),
        _unary("cuvil.silu", F.silu),
        _unary("cuvil.floor", torch.floor),
        _unary("cuvil.ceil", torch.ceil),
    ]
}


@register_op
class GeluOp(UnaryOp):
    """``cuvil.gelu(%x) {approximate = "none"|"tanh"}``."""

    name = "cuvil.gelu"
    ATTRS = {"approximate": AttrSpec("str", default="none", choices=("none", "tanh"))}

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x, approximate=self.attrs["approximate"])


@register_op
class LeakyReluOp(UnaryOp):
    """``cuvil.leaky_relu(%x) {negative_slope = 0.01}``."""

    name = "cuvil.leaky_relu"
    ATTRS = {"negative_slope": AttrSpec("float", default=0.01)}

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return F.leaky_relu(x, self.attrs["negative_slope"])


@register_op
class LogicalNotOp(UnaryOp):
    """``cuvil.logical_not(%m)``: i1 -> i1."""

    name = "cuvil.logical_not"
    FN = staticmethod(torch.logical_not)

    def infer_types(self) -> list[TensorType]:
        (t,) = self.operand_types
        if t.dtype is not DType.i1:
            raise self.fail(f"operand must be i1, got {t}")
        return [t]


class BinaryOp(Operation):
    """``%z = cuvil.add(%x, %y)``: broadcasting; x and y have one element type."""

    OPERANDS = ("lhs", "rhs")
    TRAITS = _BIN
    LAYOUTS = ANY_LAYOUT
    FLOAT_ONLY = False
    FN: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]

    def result_dtype(self, dtype: DType) -> DType:
        return dtype

    def infer_types(self) -> list[TensorType]:
        a, b = self.operand_types
        if a.dtype is not b.dtype:
            raise self.fail(
                f"operand element types differ: {a} vs {b} (insert cuvil.cast)"
            )
        if self.FLOAT_ONLY and not a.dtype.is_float:
            raise self.fail(f"operands must be float tensors, got {a}")
        shape = broadcast_shapes(a.shape, b.shape)
        if shape is None:
            raise self.fail(f"shapes do not broadcast: {a} and {b}")
        layout = _layout_of(self, [a, b])
        return [TensorType(shape, self.result_dtype(a.dtype), layout)]

    def reference(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return type(self).FN(a, b)


class CompareOp(BinaryOp):
    """``%m = cuvil.lt(%x, %y)``: broadcasting comparison, result i1."""

    def result_dtype(self, dtype: DType) -> DType:
        return DType.i1


class LogicalOp(BinaryOp):
    def infer_types(self) -> list[TensorType]:
        types = super().infer_types()
        if self.operand_types[0].dtype is not DType.i1:
            raise self.fail(f"operands must be i1, got {self.operand_types[0]}")
        return types


def _binary(name: str, fn, base=BinaryOp, commutative=False, float_only=False):
    cls_name = "".join(p.capitalize() for p in name.split(".")[1].split("_")) + "Op"
    traits = _BIN | {Trait.COMMUTATIVE} if commutative else _BIN
    attrs = {
        "name": name,
        "FN": staticmethod(fn),
        "TRAITS": traits,
        "FLOAT_ONLY": float_only,
    }
    return register_op(type(cls_name, (base,), attrs))


BINARY_OPS: dict[str, type[BinaryOp]] = {
    op.name: op
    for op in [
        _binary("cuvil.add", torch.add, commutative=True),
        _binary("cuvil.sub", torch.sub),
        _binary("cuvil.mul", torch.mul, commutative=True),
        _binary("cuvil.div", torch.div, float_only=True),
        _binary("cuvil.pow", torch.pow),
        _binary("cuvil.maximum", torch.maximum, commutative=True),
        _binary("cuvil.minimum", torch.minimum, commutative=True),
        _binary("cuvil.eq", torch.eq, CompareOp, commutative=True),
        _binary("cuvil.ne", torch.ne, CompareOp, commutative=True),
        _binary("cuvil.lt", torch.lt, CompareOp),
        _binary("cuvil.le", torch.le, CompareOp),
        _binary("cuvil.gt", torch.gt, CompareOp),
        _binary("cuvil.ge", torch.ge, CompareOp),
        _binary("cuvil.logical_and", torch.logical_and, LogicalOp, commutative=True),
        _binary("cuvil.logical_or", torch.logical_or, LogicalOp, commutative=True),
    ]
}


@register_op
class WhereOp(Operation):
    """``%z = cuvil.where(%cond, %x, %y)``: z = cond ? x : y, broadcasting all three."""

    name = "cuvil.where"
    OPERANDS = ("cond", "x", "y")
    TRAITS = _BIN
    LAYOUTS = ANY_LAYOUT

    def infer_types(self) -> list[TensorType]:
        c, a, b = self.operand_types
        if c.dtype is not DType.i1:
            raise self.fail(f"condition must be i1, got {c}")
        if a.dtype is not b.dtype:
            raise self.fail(f"branch element types differ: {a} vs {b}")
        shape = broadcast_shapes(c.shape, a.shape, b.shape)
        if shape is None:
            raise self.fail(f"shapes do not broadcast: {c}, {a}, {b}")
        return [TensorType(shape, a.dtype, _layout_of(self, [c, a, b]))]

    def reference(self, c, a, b) -> torch.Tensor:
        return torch.where(c, a, b)


@register_op
class ClampOp(Operation):
    """``cuvil.clamp(%x) {min = 0.0, max = 6.0}``: either bound may be absent, not both."""

    name = "cuvil.clamp"
    OPERANDS = ("x",)
    TRAITS = _EW
    LAYOUTS = ANY_LAYOUT
    ATTRS = {
        "min": AttrSpec("scalar", default=None),
        "max": AttrSpec("scalar", default=None),
    }

    def infer_types(self) -> list[TensorType]:
        lo, hi = self.attrs.get("min"), self.attrs.get("max")
        if lo is None and hi is None:
            raise self.fail("needs a 'min' or a 'max' attribute")
        if lo is not None and hi is not None and lo > hi:
            raise self.fail(f"min {lo} is greater than max {hi}")
        return [self.operand_types[0]]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(x, self.attrs.get("min"), self.attrs.get("max"))


@register_op
class CastOp(Operation):
    """``cuvil.cast(%x) {dtype = f32}``: convert element type (torch ``.to(dtype)`` rules)."""

    name = "cuvil.cast"
    OPERANDS = ("x",)
    TRAITS = _EW
    LAYOUTS = ANY_LAYOUT
    ATTRS = {"dtype": AttrSpec("dtype")}

    def infer_types(self) -> list[TensorType]:
        return [self.operand_types[0].with_dtype(self.attrs["dtype"])]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return x.to(self.attrs["dtype"].torch)
