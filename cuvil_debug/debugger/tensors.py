"""A tensor in a debuggee's memory as values in logical order, and what to print of it.

A manifest argument or node gives ``shape``, ``dtype``, ``layout`` and the element
``strides`` of each logical dim (null for blocked layouts, whose index map is below), so an
NHWC buffer prints in NCHW order, as the model sees it. Pure Python: a debugger's Python has
no numpy.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass
from itertools import product
from typing import Any

__all__ = ["TensorView", "Stats", "parse_slice", "format_values"]

# dtype -> (struct code, bytes); bf16 is read as u16 and widened
_FORMATS = {
    "f64": ("d", 8), "f32": ("f", 4), "f16": ("e", 2), "bf16": ("H", 2),
    "i64": ("q", 8), "i32": ("i", 4), "i16": ("h", 2), "i8": ("b", 1),
    "u8": ("B", 1), "i1": ("?", 1),
}  # fmt: skip
_BLOCKED = re.compile(r"^nchw(\d+)c$")


@dataclass(frozen=True)
class TensorView:
    """How to read one tensor: its logical shape, dtype and layout."""

    shape: tuple[int, ...]
    dtype: str
    layout: str = "contiguous"
    strides: tuple[int, ...] | None = None

    @staticmethod
    def of(entry: dict[str, Any]) -> TensorView:
        strides = entry.get("strides")
        return TensorView(
            tuple(entry["shape"]),
            entry["dtype"],
            entry.get("layout", "contiguous"),
            tuple(strides) if strides is not None else None,
        )

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return _FORMATS[self.dtype][1]

    @property
    def nbytes(self) -> int:
        """Bytes of the buffer (a blocked layout pads channels to its block)."""
        block = _block(self.layout)
        if block and len(self.shape) == 4:
            n, c, h, w = self.shape
            return n * -(-c // block) * block * h * w * self.itemsize
        return self.numel * self.itemsize

    def describe(self) -> str:
        dims = "x".join(map(str, self.shape)) or "scalar"
        layout = "" if self.layout == "contiguous" else f", {self.layout}"
        return f"tensor<{dims}x{self.dtype}{layout}>"

    @property
    def element_strides(self) -> tuple[int, ...] | None:
        if self.strides is None and self.layout == "contiguous":
            return _row_major(self.shape)
        return self.strides

    def offset(self, index: tuple[int, ...]) -> int:
        """Element offset in memory of a logical index."""
        strides = self.element_strides
        if strides is not None:
            return sum(i * s for i, s in zip(index, strides))
        block = _block(self.layout)
        if block is None or len(index) != 4:
            raise ValueError(f"cannot index layout {self.layout}")
        n, c, h, w = index
        _, channels, height, width = self.shape
        blocks = -(-channels // block)
        return (
            ((n * blocks + c // block) * height + h) * width + w
        ) * block + c % block

    def decode(self, raw: bytes, indices=None) -> list[float]:
        """Values at `indices` (default: all, in logical row-major order)."""
        code, size = _FORMATS[self.dtype]
        flat = struct.unpack(
            f"<{len(raw) // size}{code}", raw[: len(raw) // size * size]
        )
        if self.dtype == "bf16":
            flat = [struct.unpack("<f", struct.pack("<I", v << 16))[0] for v in flat]
        order = indices if indices is not None else product(*map(range, self.shape))
        if indices is None and self.element_strides == _row_major(self.shape):
            return [float(v) for v in flat[: self.numel]]
        return [float(flat[self.offset(i)]) for i in order]


def _block(layout: str) -> int | None:
    m = _BLOCKED.match(layout)
    return int(m.group(1)) if m else None


def _row_major(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return tuple(reversed(strides))


@dataclass(frozen=True)
class Stats:
    n: int
    min: float
    max: float
    mean: float
    std: float
    nan: int
    inf: int

    @staticmethod
    def of(values: list[float]) -> Stats:
        finite = [v for v in values if math.isfinite(v)]
        nan = sum(1 for v in values if math.isnan(v))
        inf = len(values) - len(finite) - nan
        if not finite:
            return Stats(len(values), math.nan, math.nan, math.nan, math.nan, nan, inf)
        mean = math.fsum(finite) / len(finite)
        var = math.fsum((v - mean) ** 2 for v in finite) / len(finite)
        return Stats(len(values), min(finite), max(finite), mean, var**0.5, nan, inf)

    def line(self) -> str:
        """One parseable line: ``stats: n=.. min=.. max=.. mean=.. std=.. nan=.. inf=..``."""
        return (
            f"stats: n={self.n} min={self.min:.9g} max={self.max:.9g} "
            f"mean={self.mean:.9g} std={self.std:.9g} nan={self.nan} inf={self.inf}"
        )


def parse_slice(text: str, shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Logical indices of a numpy-style slice such as ``0,:,1:3`` (missing dims: all)."""
    parts = [p.strip() for p in text.split(",")] if text.strip() else []
    if len(parts) > len(shape):
        raise ValueError(
            f"slice '{text}' has {len(parts)} dims; the tensor has {len(shape)}"
        )
    ranges = []
    for dim, size in enumerate(shape):
        part = parts[dim] if dim < len(parts) else ":"
        ranges.append(_dim_range(part, size, dim))
    return list(product(*ranges))


def _dim_range(part: str, size: int, dim: int) -> range:
    try:
        if ":" not in part:
            i = int(part)
            i = i + size if i < 0 else i
            if not 0 <= i < size:
                raise ValueError
            return range(i, i + 1)
        bits = [int(b) if b.strip() else None for b in part.split(":")]
        if len(bits) > 3:
            raise ValueError
        return range(size)[slice(*bits)]
    except ValueError:
        raise ValueError(f"bad index '{part}' for dim {dim} of size {size}") from None


def format_values(values: list[float], dtype: str, limit: int = 8) -> str:
    """``[v0, v1, ... vn]`` with the first and last `limit` values."""
    fmt = (
        (lambda v: f"{v:.6g}")
        if dtype.startswith(("f", "bf"))
        else (lambda v: f"{int(v)}")
    )
    if len(values) <= 2 * limit:
        return "[" + ", ".join(map(fmt, values)) + "]"
    head = ", ".join(map(fmt, values[:limit]))
    tail = ", ".join(map(fmt, values[-limit:]))
    return f"[{head}, ... {tail}]"
