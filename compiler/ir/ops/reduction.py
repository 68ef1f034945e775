"""Reductions over dims (sum, mean, amax, amin, var, argmax) and softmax/log_softmax."""

from __future__ import annotations

import torch

from ..attributes import AttrSpec
from ..core import Operation, Trait, register_op
from ..types import DType, TensorType

__all__ = ["ReduceOp", "REDUCE_OPS", "VarOp", "ArgmaxOp", "SoftmaxOp", "LogSoftmaxOp"]

_RED = frozenset({Trait.PURE, Trait.REDUCTION})


def _reduced_shape(op: Operation, t: TensorType, dims: tuple[int, ...], keepdim: bool):
    if len(set(dims)) != len(dims):
        raise op.fail(f"dims {list(dims)} repeat a dim")
    for d in dims:
        if not 0 <= d < t.rank:
            raise op.fail(
                f"dim {d} is out of range for rank {t.rank} (valid: 0..{t.rank - 1})"
            )
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(t.shape))
    return tuple(s for i, s in enumerate(t.shape) if i not in dims)


class ReduceOp(Operation):
    """``cuvil.sum(%x) {dims = [1], keepdim = false}``: reduce the listed dims.

    An empty ``dims`` list is the identity (torch would reduce every dim for ``dim=[]``;
    the frontends always list the dims explicitly).
    """

    OPERANDS = ("x",)
    TRAITS = _RED
    ATTRS = {
        "dims": AttrSpec("ints", min=0),
        "keepdim": AttrSpec("bool", default=False),
    }
    FLOAT_ONLY = False
    ADDS = False  # accumulates from +0 (sum, mean): the sign of a zero is not kept

    def infer_types(self) -> list[TensorType]:
        (t,) = self.operand_types
        if self.FLOAT_ONLY and not t.dtype.is_float:
            raise self.fail(f"operand must be a float tensor, got {t}")
        shape = _reduced_shape(self, t, self.attrs["dims"], self.attrs["keepdim"])
        return [TensorType(shape, t.dtype)]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        dims, keep = list(self.attrs["dims"]), self.attrs["keepdim"]
        if not dims:  # a sum starts from +0: torch's sum of a 0-d -0.0 is +0.0
            return x + 0 if self.ADDS and x.is_floating_point() else x.clone()
        return type(self).FN(x, dims, keep)


@register_op
class SumOp(ReduceOp):
    name = "cuvil.sum"
    ADDS = True
    FN = staticmethod(lambda x, d, k: torch.sum(x, d, k))


@register_op
class MeanOp(ReduceOp):
    name = "cuvil.mean"
    ADDS = True
    FN = staticmethod(lambda x, d, k: torch.mean(x, d, k))
    FLOAT_ONLY = True


@register_op
class AmaxOp(ReduceOp):
    name = "cuvil.amax"
    FN = staticmethod(lambda x, d, k: torch.amax(x, d, k))


@register_op
class AminOp(ReduceOp):
    name = "cuvil.amin"
    FN = staticmethod(lambda x, d, k: torch.amin(x, d, k))


@register_op
class ProdOp(ReduceOp):
    name = "cuvil.prod"
    FN = staticmethod(lambda x, d, k: _prod(x, d, k))


REDUCE_OPS = {op.name: op for op in [SumOp, MeanOp, AmaxOp, AminOp, ProdOp]}


def _prod(x: torch.Tensor, dims: list[int], keep: bool) -> torch.Tensor:
    for d in sorted(dims, reverse=True):
        x = torch.prod(x, d, keep)
    return x


@register_op
class VarOp(ReduceOp):
    """``cuvil.var(%x) {dims = [1], correction = 1, keepdim = false, sqrt = false}``;
    with ``sqrt`` the standard deviation (the root taken before rounding to x's type,
    as torch.std does: a variance past float32's range can have a representable root)."""

    name = "cuvil.var"
    FLOAT_ONLY = True
    ATTRS = {
        **ReduceOp.ATTRS,
        "correction": AttrSpec("int", default=1, min=0),
        "sqrt": AttrSpec("bool", default=False),
    }

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        dims = list(self.attrs["dims"])
        fn = torch.std if self.attrs.get("sqrt", False) else torch.var
        return fn(
            x, dims, correction=self.attrs["correction"], keepdim=self.attrs["keepdim"]
        )


@register_op
class ArgmaxOp(Operation):
    """``cuvil.argmax(%x) {dim = 1, keepdim = false}`` -> i64 indices."""

    name = "cuvil.argmax"
    OPERANDS = ("x",)
    TRAITS = _RED
    ATTRS = {"dim": AttrSpec("int", min=0), "keepdim": AttrSpec("bool", default=False)}

    def infer_types(self) -> list[TensorType]:
        (t,) = self.operand_types
        shape = _reduced_shape(self, t, (self.attrs["dim"],), self.attrs["keepdim"])
        return [TensorType(shape, DType.i64)]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype == torch.bool:  # torch.argmax has no bool kernel; 0 < 1 the same
            x = x.to(torch.uint8)
        return torch.argmax(x, self.attrs["dim"], self.attrs["keepdim"])


@register_op
class SoftmaxOp(Operation):
    """``cuvil.softmax(%x) {dim = 1}``: exp(x - max) / sum(exp(x - max)) along dim."""

    name = "cuvil.softmax"
    OPERANDS = ("x",)
    TRAITS = frozenset({Trait.PURE})
    ATTRS = {"dim": AttrSpec("int", min=0)}

    def infer_types(self) -> list[TensorType]:
        (t,) = self.operand_types
        if not t.dtype.is_float:
            raise self.fail(f"operand must be a float tensor, got {t}")
        _reduced_shape(self, t, (self.attrs["dim"],), True)
        return [t]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, self.attrs["dim"])


@register_op
class LogSoftmaxOp(SoftmaxOp):
    """``cuvil.log_softmax(%x) {dim = 1}``."""

    name = "cuvil.log_softmax"

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(x, self.attrs["dim"])
