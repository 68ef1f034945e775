"""The tensors of a random graph: specs, value profiles and memory layouts.

A ``TensorSpec`` is data (shape, dtype, a seed, a value profile, a layout, or literal
values once a shrinker simplified them); ``make(spec)`` builds the tensor the same way
every time. Profiles:

* ``normal``: standard normal values;
* ``edges``: normal values with about one in six replaced by 0, -0, +-1, +-1e4, +-1e-30,
  +-1e-40 (denormal) or the largest finite float;
* ``offset``: normal values plus a large common offset (1e4): the rows that make a
  one-pass variance or a log-sum-exp lose precision;
* ``nonfinite``: normal values with inf, -inf and nan sprinkled in;
* ``positive``: values in [0.5, 2] (variances, divisors);
* ``small``: small integers as floats (exact arithmetic, ties in max/sort).

Layouts make the *same logical values* with other strides: ``transposed`` (stored with
the last two dims swapped), ``strided`` (every other element of a larger buffer),
``offset`` (a storage offset), ``expanded`` (a size-1 dim broadcast with stride 0).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import torch

__all__ = ["TensorSpec", "make", "literal", "PROFILES", "LAYOUTS", "DTYPES"]

PROFILES = ("normal", "edges", "offset", "nonfinite", "positive", "small")
LAYOUTS = ("contiguous", "transposed", "strided", "offset", "expanded")
DTYPES = {
    "float32": torch.float32,
    "float64": torch.float64,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int64": torch.int64,
    "int32": torch.int32,
    "int16": torch.int16,
    "int8": torch.int8,
    "uint8": torch.uint8,
    "bool": torch.bool,
}
_EDGES = [0.0, -0.0, 1.0, -1.0, 1e4, -1e4, 1e-30, -1e-30, 1e-40, -1e-40, 3.4e38]


@dataclass
class TensorSpec:
    """How to build one tensor; ``values`` (row-major) wins over ``seed``/``profile``.
    ``low``/``high`` bound integer values (indices: ``[low, high)``)."""

    shape: list[int]
    dtype: str = "float32"
    seed: int = 0
    profile: str = "normal"
    layout: str = "contiguous"
    low: int = -8
    high: int = 8
    values: list[Any] | None = field(default=None)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> TensorSpec:
        return cls(**d)

    @property
    def torch_dtype(self) -> torch.dtype:
        return DTYPES[self.dtype]


def _floats(spec: TensorSpec, g: torch.Generator, n: int) -> torch.Tensor:
    x = torch.randn(n, generator=g, dtype=torch.float64)
    profile = spec.profile
    if profile == "positive":
        return 0.5 + 1.5 * torch.rand(n, generator=g, dtype=torch.float64)
    if profile == "small":
        return torch.randint(-4, 5, (n,), generator=g).double()
    if profile == "offset":
        return x + 1e4
    if profile in ("edges", "nonfinite"):
        pool = _EDGES if profile == "edges" else [math.inf, -math.inf, math.nan]
        pick = torch.randint(0, len(pool), (n,), generator=g)
        chosen = torch.tensor(pool, dtype=torch.float64)[pick]
        mask = torch.rand(n, generator=g) < (1 / 6 if profile == "edges" else 1 / 10)
        x = torch.where(mask, chosen, x)
    return x


def _values(spec: TensorSpec) -> torch.Tensor:
    """The logical values, contiguous, in the spec's dtype."""
    n = math.prod(spec.shape)
    dtype = spec.torch_dtype
    if spec.values is not None:
        flat = torch.tensor(
            spec.values, dtype=torch.float64 if dtype.is_floating_point else None
        )
        return flat.to(dtype).reshape(spec.shape)
    g = torch.Generator().manual_seed(spec.seed)
    if dtype == torch.bool:
        flat = torch.rand(n, generator=g) < 0.5
    elif dtype.is_floating_point:
        flat = _floats(spec, g, n)
    else:
        low = max(spec.low, torch.iinfo(dtype).min)
        high = min(spec.high, torch.iinfo(dtype).max + 1)
        flat = torch.randint(low, max(high, low + 1), (n,), generator=g)
    return flat.to(dtype).reshape(spec.shape)


def make(spec: TensorSpec) -> torch.Tensor:
    """The tensor of `spec`, with its layout's strides (the values never depend on it)."""
    x = _values(spec)
    layout, rank = spec.layout, len(spec.shape)
    if layout == "transposed" and rank >= 2:
        return x.transpose(-1, -2).contiguous().transpose(-1, -2)
    if layout == "strided" and rank >= 1:
        wide = torch.zeros(*spec.shape[:-1], 2 * spec.shape[-1], dtype=x.dtype)
        wide[..., ::2] = x
        return wide[..., ::2]
    if layout == "offset" and rank >= 1:
        flat = torch.zeros(x.numel() + 3, dtype=x.dtype)
        flat[3:] = x.reshape(-1)
        return flat[3:].view(spec.shape)
    wide = [d for d, n in enumerate(spec.shape) if n > 1]
    if layout == "expanded" and wide:  # the first wide dim read with stride 0
        return x.narrow(wide[0], 0, 1).expand(*spec.shape)
    return x


def literal(t: torch.Tensor) -> list[Any]:
    """Row-major values of `t` as plain Python numbers (floats exactly: float32 and
    float16 values are doubles exactly)."""
    flat = t.detach().reshape(-1)
    if t.dtype.is_floating_point:
        return [float(v) for v in flat.double().tolist()]
    return flat.tolist()
