"""Ops along one dim: inclusive scans (cumsum, cumprod) and ordering (sort, topk).

``cuvil.topk`` serves both orderings: ``k`` elements of each row along ``dim`` in a
stable order (ties keep their input order; NaN is the largest value, as in torch), the
values or (``indices = true``) their positions as i64. A sort is a topk with k = the
dim's size; torch's two results are two ops, so an unused one is removed as dead code.
"""

from __future__ import annotations

import torch

from ..attributes import AttrSpec
from ..core import Operation, Trait, register_op
from ..types import DType, TensorType

__all__ = ["CumOp", "CumsumOp", "CumprodOp", "TopkOp"]

_PURE = frozenset({Trait.PURE})


def _dim(op: Operation, t: TensorType) -> int:
    d = op.attrs["dim"]
    if not 0 <= d < max(t.rank, 1):
        raise op.fail(f"dim {d} is out of range for {t}")
    return d


class CumOp(Operation):
    """``cuvil.cumsum(%x) {dim}``: out[..., i, ...] = x[..., 0, ...] + ... + x[..., i, ...]."""

    OPERANDS = ("x",)
    TRAITS = _PURE
    ATTRS = {"dim": AttrSpec("int", min=0)}
    FN = torch.cumsum

    def infer_types(self) -> list[TensorType]:
        (x,) = self.operand_types
        _dim(self, x)
        if x.dtype is DType.i1:
            raise self.fail(f"input must be numeric (cast i1 to i64 first), got {x}")
        return [x]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return type(self).FN(x, self.attrs["dim"] if x.dim() else 0).to(x.dtype)


@register_op
class CumsumOp(CumOp):
    name, FN = "cuvil.cumsum", torch.cumsum


@register_op
class CumprodOp(CumOp):
    name, FN = "cuvil.cumprod", torch.cumprod


@register_op
class CummaxOp(CumOp):
    """``cuvil.cummax(%x) {dim}``: the running maximum (NaN, once seen, stays)."""

    name = "cuvil.cummax"
    FN = staticmethod(lambda x, dim: torch.cummax(x, dim).values)


@register_op
class CumminOp(CumOp):
    """``cuvil.cummin(%x) {dim}``: the running minimum (NaN, once seen, stays)."""

    name = "cuvil.cummin"
    FN = staticmethod(lambda x, dim: torch.cummin(x, dim).values)


@register_op
class TopkOp(Operation):
    """``cuvil.topk(%x) {dim, k, largest, indices}``: the k largest (or smallest) elements
    along dim in order, stable; their values, or their positions along dim (i64)."""

    name = "cuvil.topk"
    OPERANDS = ("x",)
    TRAITS = _PURE
    ATTRS = {
        "dim": AttrSpec("int", min=0),
        "k": AttrSpec("int", min=0),
        "largest": AttrSpec("bool", default=True),
        "indices": AttrSpec("bool", default=False),
    }

    def infer_types(self) -> list[TensorType]:
        (x,) = self.operand_types
        d, k = _dim(self, x), self.attrs["k"]
        if x.rank == 0:
            shape: tuple = ()
            if k > 1:
                raise self.fail(f"k = {k} exceeds the 1 element of {x}")
        else:
            size = x.shape[d]
            if isinstance(size, int) and k > size:
                raise self.fail(f"k = {k} exceeds the size {size} of dim {d} of {x}")
            shape = x.shape[:d] + (k,) + x.shape[d + 1 :]
        return [TensorType(shape, DType.i64 if self.attrs["indices"] else x.dtype)]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        a = self.attrs
        d = a["dim"] if x.dim() else 0
        values, idx = torch.sort(x, dim=d, descending=a["largest"], stable=True)
        out = idx if a["indices"] else values
        return out.narrow(d, 0, a["k"]) if x.dim() else out
