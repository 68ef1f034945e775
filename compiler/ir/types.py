"""Tensor types of Cuvil IR: element types, (possibly symbolic) shapes and layouts."""

from __future__ import annotations

import enum
from dataclasses import dataclass

import torch

__all__ = ["DType", "SymDim", "Dim", "TensorType", "LAYOUTS", "broadcast_shapes"]


class DType(enum.Enum):
    """Element types. The value is the spelling in the text format."""

    f64 = "f64"
    f32 = "f32"
    f16 = "f16"
    bf16 = "bf16"
    i64 = "i64"
    i32 = "i32"
    i16 = "i16"
    i8 = "i8"
    u8 = "u8"
    i1 = "i1"

    @property
    def torch(self) -> torch.dtype:
        return _TO_TORCH[self]

    @staticmethod
    def from_torch(dtype: torch.dtype) -> DType:
        try:
            return _FROM_TORCH[dtype]
        except KeyError:
            raise ValueError(f"torch dtype {dtype} has no Cuvil element type") from None

    @property
    def is_float(self) -> bool:
        return self in (DType.f64, DType.f32, DType.f16, DType.bf16)

    @property
    def is_int(self) -> bool:
        return not self.is_float and self is not DType.i1

    def __str__(self) -> str:
        return self.value


_TO_TORCH = {
    DType.f64: torch.float64,
    DType.f32: torch.float32,
    DType.f16: torch.float16,
    DType.bf16: torch.bfloat16,
    DType.i64: torch.int64,
    DType.i32: torch.int32,
    DType.i16: torch.int16,
    DType.i8: torch.int8,
    DType.u8: torch.uint8,
    DType.i1: torch.bool,
}
_FROM_TORCH = {v: k for k, v in _TO_TORCH.items()}


@dataclass(frozen=True)
class SymDim:
    """A dimension unknown at compile time. `name` ties equal dims together; None = anonymous.

    Printed as ``?`` (anonymous) or ``[name]``.
    """

    name: str | None = None

    def __str__(self) -> str:
        return "?" if self.name is None else f"[{self.name}]"


Dim = int | SymDim

# Layout names: the logical shape never changes; the layout says how memory is ordered.
# "nhwc" stores a logical NCHW tensor channels-last; "nchw16c" blocks channels by 16.
LAYOUTS = {"contiguous": None, "nhwc": 4, "nwc": 3, "nchw8c": 4, "nchw16c": 4}


@dataclass(frozen=True)
class TensorType:
    """``tensor<2x[batch]x?xf32, nhwc>``: a shape (ints or SymDims), a DType and a layout."""

    shape: tuple[Dim, ...]
    dtype: DType
    layout: str = "contiguous"

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def is_static(self) -> bool:
        return all(isinstance(d, int) for d in self.shape)

    def numel(self) -> int | None:
        """Number of elements, or None when a dim is symbolic."""
        n = 1
        for d in self.shape:
            if not isinstance(d, int):
                return None
            n *= d
        return n

    def with_shape(self, shape: tuple[Dim, ...]) -> TensorType:
        return TensorType(tuple(shape), self.dtype, self.layout)

    def with_dtype(self, dtype: DType) -> TensorType:
        return TensorType(self.shape, dtype, self.layout)

    def __str__(self) -> str:
        dims = "".join(f"{d}x" for d in self.shape)
        layout = "" if self.layout == "contiguous" else f", {self.layout}"
        return f"tensor<{dims}{self.dtype}{layout}>"

    @staticmethod
    def of(t: torch.Tensor) -> TensorType:
        return TensorType(tuple(int(d) for d in t.shape), DType.from_torch(t.dtype))


def _broadcast_dim(a: Dim, b: Dim) -> Dim | None:
    if a == 1:
        return b
    if b == 1 or a == b:
        return a
    if isinstance(a, SymDim) and isinstance(b, SymDim):
        return a if a.name is not None else b
    if isinstance(a, SymDim) or isinstance(b, SymDim):
        return b if isinstance(a, SymDim) else a  # the static size wins at run time
    return None


def broadcast_shapes(*shapes: tuple[Dim, ...]) -> tuple[Dim, ...] | None:
    """NumPy broadcasting of shapes; None when they do not broadcast."""
    rank = max((len(s) for s in shapes), default=0)
    out: list[Dim] = [1] * rank
    for s in shapes:
        padded = (1,) * (rank - len(s)) + tuple(s)
        for i, d in enumerate(padded):
            r = _broadcast_dim(out[i], d)
            if r is None:
                return None
            out[i] = r
    return tuple(out)
