"""Indexing ops: advanced indexing (``x[i, j]``), index_put, gather and scatter.

Index operands are i64 or i32 tensors. Indices that are out of range are a runtime
error in native code (the kernels check every index they load, codegen/indexing.py);
the references raise as torch does.
"""

from __future__ import annotations

import torch

from ..attributes import AttrSpec
from ..core import Operation, Trait, register_op
from ..types import Dim, DType, TensorType, broadcast_shapes

__all__ = ["IndexOp", "IndexPutOp", "GatherOp", "ScatterOp", "index_shape"]

_PURE = frozenset({Trait.PURE})
INDEX_DTYPES = (DType.i64, DType.i32)


def _check_indices(op: Operation, x: TensorType, idx: list[TensorType], dims) -> tuple:
    """The broadcast shape of the index tensors; checks dtypes and `dims`."""
    dims = list(dims)
    if len(dims) != len(idx) or not idx:
        raise op.fail(f"'dims' {dims} must name one dim per index tensor ({len(idx)})")
    if dims != sorted(set(dims)) or any(not 0 <= d < x.rank for d in dims):
        raise op.fail(f"'dims' {dims} must be increasing dims of {x}")
    for t in idx:
        if t.dtype not in INDEX_DTYPES:
            raise op.fail(f"index tensors must be i64 or i32, got {t}")
    shape = broadcast_shapes(*(t.shape for t in idx))
    if shape is None:
        raise op.fail(f"index tensors {[str(t) for t in idx]} do not broadcast")
    return shape


def index_shape(x_shape: tuple, dims: list[int], bshape: tuple) -> tuple[Dim, ...]:
    """torch's result shape of ``x[indices]``: the broadcast index shape replaces the
    indexed dims in place when they are adjacent, else it goes first."""
    rest = [d for i, d in enumerate(x_shape) if i not in dims]
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    at = dims[0] if adjacent else 0
    return tuple(rest[:at]) + tuple(bshape) + tuple(rest[at:])


def _torch_indices(rank: int, dims, idx) -> list:
    full: list = [None] * (max(dims) + 1 if dims else 0)
    for d, t in zip(dims, idx):
        full[d] = t.long()
    return full


def _refuse_negative(dims, idx) -> None:
    for d, t in zip(dims, idx):
        if t.numel() and bool((t < 0).any()):
            raise IndexError(f"index {int(t.min())} is out of range for dim {d}")


@register_op
class IndexOp(Operation):
    """``cuvil.index(%x, %i0, %i1) {dims = [0, 1]}``: ``x[i0, i1]`` (torch's advanced
    indexing, ``aten.index.Tensor``); ``dims`` names the dim each index tensor indexes,
    the others are taken whole. Negative indices count from the end (``wrap = false``:
    they are out of range, as in ``index_select``)."""

    name = "cuvil.index"
    OPERANDS = ("x", "indices*")
    TRAITS = _PURE
    ATTRS = {"dims": AttrSpec("ints"), "wrap": AttrSpec("bool", default=True)}

    def infer_types(self) -> list[TensorType]:
        x, *idx = self.operand_types
        bshape = _check_indices(self, x, idx, self.attrs["dims"])
        shape = index_shape(x.shape, list(self.attrs["dims"]), bshape)
        return [TensorType(shape, x.dtype)]

    def reference(self, x: torch.Tensor, *idx: torch.Tensor) -> torch.Tensor:
        dims = list(self.attrs["dims"])
        if not self.attrs.get("wrap", True):
            _refuse_negative(dims, idx)
        return torch.ops.aten.index.Tensor(x, _torch_indices(x.dim(), dims, idx))


@register_op
class IndexPutOp(Operation):
    """``cuvil.index_put(%x, %values, %i0) {dims = [0], accumulate = false}``: a copy of
    x with ``x[i0] = values`` (``+=`` with accumulate, duplicates summed). `values`
    broadcasts to the shape of ``x[i0]``. Negative indices count from the end
    (``wrap = false``: they are out of range, as in ``index_add``/``index_copy``)."""

    name = "cuvil.index_put"
    OPERANDS = ("x", "values", "indices*")
    TRAITS = _PURE
    ATTRS = {
        "dims": AttrSpec("ints"),
        "accumulate": AttrSpec("bool", default=False),
        "wrap": AttrSpec("bool", default=True),
    }

    def infer_types(self) -> list[TensorType]:
        x, values, *idx = self.operand_types
        bshape = _check_indices(self, x, idx, self.attrs["dims"])
        target = index_shape(x.shape, list(self.attrs["dims"]), bshape)
        if values.dtype is not x.dtype:
            raise self.fail(f"values {values} must have x's element type {x.dtype}")
        if broadcast_shapes(values.shape, target) != tuple(target):
            raise self.fail(f"values {values} do not broadcast to {list(target)}")
        return [x]

    def reference(self, x, values, *idx) -> torch.Tensor:
        if not self.attrs.get("wrap", True):
            _refuse_negative(list(self.attrs["dims"]), idx)
        full = _torch_indices(x.dim(), list(self.attrs["dims"]), idx)
        return torch.ops.aten.index_put(
            x, full, values, bool(self.attrs.get("accumulate", False))
        )


def _check_along(op: Operation, x: TensorType, index: TensorType, dim: int) -> None:
    if not 0 <= dim < max(x.rank, 1):
        raise op.fail(f"dim {dim} is out of range for {x}")
    if index.dtype not in INDEX_DTYPES:
        raise op.fail(f"index must be i64 or i32, got {index}")
    if index.rank != x.rank:
        raise op.fail(f"index {index} must have the rank of {x}")


@register_op
class GatherOp(Operation):
    """``cuvil.gather(%x, %index) {dim}``: out[p] = x[p with p[dim] = index[p]]
    (``torch.gather``); out has index's shape, which is at most x's off `dim`."""

    name = "cuvil.gather"
    OPERANDS = ("x", "index")
    TRAITS = _PURE
    ATTRS = {"dim": AttrSpec("int", min=0)}

    def infer_types(self) -> list[TensorType]:
        x, index = self.operand_types
        dim = self.attrs["dim"]
        _check_along(self, x, index, dim)
        for d, (n, m) in enumerate(zip(index.shape, x.shape)):
            if d != dim and isinstance(n, int) and isinstance(m, int) and n > m:
                raise self.fail(f"index {index} is larger than {x} in dim {d}")
        return [TensorType(index.shape, x.dtype)]

    def reference(self, x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        return torch.gather(x, self.attrs["dim"], index.long())


@register_op
class ScatterOp(Operation):
    """``cuvil.scatter(%x, %index, %src) {dim, reduce = "none"}``: a copy of x with
    out[p with p[dim] = index[p]] = src[p] for p over index's shape (``torch.scatter``;
    ``reduce = "add" | "mul" | "max" | "min"``: ``scatter_reduce`` with x included,
    duplicates combined; max/min propagate NaN)."""

    name = "cuvil.scatter"
    OPERANDS = ("x", "index", "src")
    TRAITS = _PURE
    ATTRS = {
        "dim": AttrSpec("int", min=0),
        "reduce": AttrSpec(
            "str", default="none", choices=("none", "add", "mul", "max", "min")
        ),
    }

    def infer_types(self) -> list[TensorType]:
        x, index, src = self.operand_types
        dim = self.attrs["dim"]
        _check_along(self, x, index, dim)
        if src.dtype is not x.dtype or src.rank != x.rank:
            raise self.fail(f"src {src} must have x's rank and element type ({x})")
        for d, n in enumerate(index.shape):
            limits = [src.shape[d]] + ([] if d == dim else [x.shape[d]])
            if any(isinstance(n, int) and isinstance(m, int) and n > m for m in limits):
                raise self.fail(f"index {index} is larger than src or x in dim {d}")
        return [x]

    def reference(self, x, index, src) -> torch.Tensor:
        dim, reduce = self.attrs["dim"], self.attrs.get("reduce", "none")
        if reduce == "none":
            return torch.scatter(x, dim, index.long(), src)
        how = {"add": "sum", "mul": "prod", "max": "amax", "min": "amin"}[reduce]
        return torch.scatter_reduce(x, dim, index.long(), src, how)
