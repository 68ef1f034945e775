"""Data-movement ops: reshape, permute, expand, slice, cat. No arithmetic (trait VIEW)."""

from __future__ import annotations

import math

import torch

from ..attributes import AttrSpec
from ..core import Operation, Trait, register_op
from ..types import Dim, SymDim, TensorType

__all__ = ["ReshapeOp", "PermuteOp", "ExpandOp", "SliceOp", "CatOp"]

_VIEW = frozenset({Trait.PURE, Trait.VIEW})


def _check_dim(op: Operation, dim: int, rank: int) -> None:
    if not 0 <= dim < rank:
        raise op.fail(
            f"dim {dim} is out of range for rank {rank} (valid: 0..{rank - 1})"
        )


def _static(t: TensorType) -> bool:
    return t.is_static


@register_op
class ReshapeOp(Operation):
    """``cuvil.reshape(%x) {shape = [[batch], 128]}``: same elements, new shape.

    One entry may be -1 (inferred from the element count), like ``torch.reshape``.
    """

    name = "cuvil.reshape"
    OPERANDS = ("x",)
    TRAITS = _VIEW
    ATTRS = {"shape": AttrSpec("ints", sym=True)}

    def infer_types(self) -> list[TensorType]:
        (t,) = self.operand_types
        shape: list[Dim] = list(self.attrs["shape"])
        if sum(1 for d in shape if d == -1) > 1:
            raise self.fail("at most one dim of 'shape' may be -1")
        if any(isinstance(d, int) and d < -1 for d in shape):
            raise self.fail(f"negative size in shape {self.attrs['shape']}")
        known = math.prod(d for d in shape if isinstance(d, int) and d != -1)
        numel = t.numel()
        if -1 in shape:
            i = shape.index(-1)
            if numel is None or any(isinstance(d, SymDim) for d in shape):
                shape[i] = SymDim()
            elif known == 0 or numel % known:
                raise self.fail(
                    f"cannot infer -1 in shape {list(self.attrs['shape'])} for {t}"
                )
            else:
                shape[i] = numel // known
        elif (
            numel is not None
            and all(isinstance(d, int) for d in shape)
            and known != numel
        ):
            raise self.fail(
                f"shape {list(shape)} has {known} elements but input {t} has {numel}"
            )
        return [TensorType(tuple(shape), t.dtype)]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return x.reshape(
            tuple(self.results[0].type.shape)
            if _static(self.results[0].type)
            else _runtime_shape(self.attrs["shape"], x)
        )


def _runtime_shape(shape, x: torch.Tensor) -> tuple[int, ...]:
    """Resolve symbolic entries of a target shape: anonymous ones become -1."""
    return tuple(-1 if isinstance(d, SymDim) else d for d in shape)


@register_op
class PermuteOp(Operation):
    """``cuvil.permute(%x) {dims = [0, 2, 1]}``: out.shape[i] = x.shape[dims[i]]."""

    name = "cuvil.permute"
    OPERANDS = ("x",)
    TRAITS = _VIEW
    ATTRS = {"dims": AttrSpec("ints")}

    def infer_types(self) -> list[TensorType]:
        (t,) = self.operand_types
        dims = self.attrs["dims"]
        if sorted(dims) != list(range(t.rank)):
            raise self.fail(
                f"dims {list(dims)} is not a permutation of 0..{t.rank - 1}"
            )
        return [TensorType(tuple(t.shape[d] for d in dims), t.dtype)]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return x.permute(*self.attrs["dims"])


@register_op
class ExpandOp(Operation):
    """``cuvil.expand(%x) {shape = [4, 3]}``: broadcast size-1 dims (and new leading dims)."""

    name = "cuvil.expand"
    OPERANDS = ("x",)
    TRAITS = _VIEW
    ATTRS = {"shape": AttrSpec("ints", sym=True)}

    def infer_types(self) -> list[TensorType]:
        (t,) = self.operand_types
        shape = self.attrs["shape"]
        if len(shape) < t.rank:
            raise self.fail(f"shape {list(shape)} has fewer dims than the input {t}")
        lead = len(shape) - t.rank
        for i, d in enumerate(t.shape):
            want = shape[lead + i]
            if d != want and d != 1 and not isinstance(want, SymDim):
                raise self.fail(
                    f"dim {i} of size {d} cannot expand to {want} (only size 1 can)"
                )
        if any(isinstance(d, int) and d < 0 for d in shape):
            raise self.fail(f"negative size in shape {list(shape)}")
        return [TensorType(tuple(shape), t.dtype)]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        return x.expand(tuple(_runtime_shape(self.attrs["shape"], x)))


@register_op
class SliceOp(Operation):
    """``cuvil.slice(%x) {dim = 1, start = 0, end = 4, step = 2}``: 0 <= start <= end <= size."""

    name = "cuvil.slice"
    OPERANDS = ("x",)
    TRAITS = _VIEW
    ATTRS = {
        "dim": AttrSpec("int", min=0),
        "start": AttrSpec("int", min=0),
        "end": AttrSpec("int", min=0),
        "step": AttrSpec("int", default=1, min=1),
    }

    def infer_types(self) -> list[TensorType]:
        (t,) = self.operand_types
        dim, start, end, step = (self.attrs[k] for k in ("dim", "start", "end", "step"))
        _check_dim(self, dim, t.rank)
        size = t.shape[dim]
        if start > end:
            raise self.fail(f"start {start} is after end {end}")
        if isinstance(size, int) and end > size:
            raise self.fail(f"end {end} is past the size {size} of dim {dim}")
        shape = list(t.shape)
        shape[dim] = -(-(end - start) // step)
        return [TensorType(tuple(shape), t.dtype)]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        dim, start, end, step = (self.attrs[k] for k in ("dim", "start", "end", "step"))
        return x.narrow(dim, start, end - start)[
            (slice(None),) * dim + (slice(None, None, step),)
        ]


@register_op
class CatOp(Operation):
    """``cuvil.cat(%a, %b, ...) {dim = 1}``: concatenate tensors of equal rank along dim."""

    name = "cuvil.cat"
    OPERANDS = ("inputs*",)
    TRAITS = _VIEW
    ATTRS = {"dim": AttrSpec("int", min=0)}

    def infer_types(self) -> list[TensorType]:
        types = self.operand_types
        if not types:
            raise self.fail("needs at least one input")
        first, dim = types[0], self.attrs["dim"]
        _check_dim(self, dim, first.rank)
        total: Dim = 0
        for i, t in enumerate(types):
            if t.rank != first.rank or t.dtype is not first.dtype:
                raise self.fail(
                    f"input {i} is {t}, expected rank {first.rank} {first.dtype}"
                )
            for d in range(t.rank):
                if d != dim and t.shape[d] != first.shape[d]:
                    raise self.fail(f"input {i} is {t}; dim {d} must match {first}")
            ok = isinstance(total, int) and isinstance(t.shape[dim], int)
            total = total + t.shape[dim] if ok else SymDim()
        shape = list(first.shape)
        shape[dim] = total
        return [TensorType(tuple(shape), first.dtype)]

    def reference(self, *xs: torch.Tensor) -> torch.Tensor:
        return torch.cat(xs, dim=self.attrs["dim"])
