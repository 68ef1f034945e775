"""Non-tensor arguments by parameter name: dims, sizes, windows, modes, scalars.

``scalar_arg(draft, param)`` returns ``(encoded, concrete)``. A rule sees the first
tensor (``draft.primary``) and what was drawn before (``draft.ctx``). A name without a
rule gets a value of its kind (an int in [0, 3], a scalar from synth.SCALARS, a random
bool); a string without choices cannot be drawn (the op is skipped for this draw).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import torch

from .shapes import DIMS, random_shape

if TYPE_CHECKING:
    from .catalog import Param
    from .synth import Draft

__all__ = ["scalar_arg"]

_DTYPES = [
    "float32",
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "int64",
    "int32",
    "bool",
]
_STRINGS = {
    "approximate": ["none", "tanh"],
    "rounding_mode": [None, "trunc", "floor"],
    "compute_mode": [None],
}
_MODES = {
    "pad": ["constant", "reflect", "replicate", "circular"],
    "interpolate": [
        "nearest",
        "linear",
        "bilinear",
        "bicubic",
        "area",
        "nearest-exact",
    ],
    "embedding_bag": ["sum", "mean", "max"],
    "scatter": ["add", "multiply"],
    "scatter_reduce": ["sum", "prod", "mean", "amax", "amin"],
}


def _x(d: Draft) -> torch.Tensor:
    return d.primary if d.primary is not None else torch.zeros(())


def _dim(d: Draft) -> int:
    r = max(_x(d).dim(), 1)
    return d.rng.randint(-r, r - 1)


def _dims(d: Draft) -> list[int]:
    r = _x(d).dim()
    if d.form.name in ("permute", "permute_copy"):
        order = list(range(r))
        d.rng.shuffle(order)
        return order
    n = len(d.ctx["shifts"]) if "shifts" in d.ctx else d.rng.randint(0 if r else 0, r)
    return d.rng.sample(range(r), min(n, r)) if r else []


def _factor(d: Draft, n: int) -> list[int]:
    """A random shape with `n` elements (maybe with one -1)."""
    out, left = [], n
    while left > 1 and len(out) < 3:
        divisors = [k for k in range(1, left + 1) if left % k == 0]
        k = d.rng.choice(divisors)
        out.append(k)
        left //= k
    out.append(left)
    d.rng.shuffle(out)
    if len(out) > 1 and d.rng.random() < 0.3:
        out[d.rng.randrange(len(out))] = -1
    return out


def _size(d: Draft, p: Param) -> list[int]:
    x, op = _x(d), d.form.name
    if op in ("view", "reshape", "_unsafe_view", "view_copy"):
        return _factor(d, x.numel())
    if op in ("expand", "expand_copy", "broadcast_to"):
        lead = [d.rng.choice([1, 2, 3])] if d.rng.random() < 0.3 else []
        return lead + [d.rng.choice([2, 3]) if s == 1 else s for s in x.shape]
    if op in ("repeat", "tile"):
        return [d.rng.randint(1, 2) for _ in range(x.dim() + d.rng.randint(0, 1))]
    if op == "unflatten":
        dim = d.ctx.get("dim", 0)
        return _factor(d, x.shape[dim] if x.dim() else 1)
    if "upsample" in op or op == "interpolate":
        return [d.rng.randint(1, 2 * s) for s in x.shape[2:]] or [2]
    return random_shape(d.rng, d.rng.randint(0, 3))


def _window(d: Draft, p: Param, low: int, high: int) -> Any:
    spatial = max(_x(d).dim() - 2, 1)
    if p.kind.startswith("int[]") and d.form.name[-2:] in ("1d", "2d", "3d"):
        spatial = int(d.form.name[-2])
    values = [d.rng.randint(low, high) for _ in range(spatial)]
    return values if p.kind.startswith("int[]") or d.rng.random() < 0.3 else values[0]


def _pads(d: Draft) -> list[int]:
    r = max(_x(d).dim(), 1)
    if "1d" in d.form.name or "2d" in d.form.name or "3d" in d.form.name:
        pairs = int(d.form.name[-2])
    else:
        pairs = d.rng.randint(1, min(r, 3))
    low = -1 if d.form.name in ("constant_pad_nd", "pad") else 0
    return [d.rng.randint(low, 2) for _ in range(2 * pairs)]


def _slice_start(d: Draft) -> int:
    x, dim = _x(d), d.ctx.get("dim", 0)
    size = x.shape[dim] if x.dim() else 1
    return (
        d.rng.randint(-size, size - 1)
        if d.form.name != "narrow"
        else d.rng.randint(0, size - 1)
    )


def _size_of_dim(d: Draft) -> int:
    x, dim = _x(d), d.ctx.get("dim", 0)
    return x.shape[dim] if x.dim() and isinstance(dim, int) else 1


def _scalar(d: Draft, p: Param) -> Any:
    from .synth import SCALARS

    if p.kind.rstrip("?") == "int":
        return d.rng.choice([0, 1, -1, 2, 3])
    return d.rng.choice(SCALARS)


def _mode(d: Draft, p: Param) -> Any:
    op = d.form.name
    if p.kind.startswith("int"):  # aten.embedding_bag's mode: 0 sum, 1 mean, 2 max
        return d.rng.randint(0, 2)
    for key, modes in _MODES.items():
        if key in op.lower():
            return d.rng.choice(modes)
    raise _skip(f"no modes known for {op}")


def _skip(why: str) -> Exception:
    from .synth import Skip

    return Skip(why)


def _channels(d: Draft) -> int:
    x = _x(d)
    conv = {"Conv1d": 1, "Conv2d": 2}.get(d.form.name, 0)
    if conv and x.dim() == conv + 1:  # unbatched
        return x.shape[0]
    return x.shape[1] if x.dim() > 1 else (x.shape[0] if x.dim() else 1)


_BY_NAME = {
    "dim": lambda d, p: _dim(d) if p.kind.rstrip("?") == "int" else _dims(d),
    "dims": lambda d, p: _dims(d),
    "shifts": lambda d, p: [d.rng.randint(-3, 3) for _ in range(d.rng.randint(1, 2))],
    "size": _size,
    "shape": _size,
    "sizes": _size,
    "output_size": _size,
    "repeats": _size,
    "unflattened_size": _size,
    "split_size": lambda d, p: d.rng.randint(1, max(_size_of_dim(d), 1)),
    "split_sizes": lambda d, p: _factor_sum(d, _size_of_dim(d)),
    "split_size_or_sections": lambda d, p: d.rng.randint(1, max(_size_of_dim(d), 1)),
    "chunks": lambda d, p: d.rng.randint(1, 4),
    "k": lambda d, p: d.rng.randint(1, max(_size_of_dim(d), 1)),
    "kernel_size": lambda d, p: _window(d, p, 1, 3),
    "stride": lambda d, p: _window(d, p, 1, 2),
    "dilation": lambda d, p: _window(d, p, 1, 2),
    "padding": lambda d, p: _pads(d) if "pad" in d.form.name else _window(d, p, 0, 1),
    "pad": lambda d, p: _pads(d),
    "output_padding": lambda d, p: [0] * max(_x(d).dim() - 2, 1),
    "groups": lambda d, p: d.ctx.get("groups_hint", 1),
    "eps": lambda d, p: d.rng.choice([1e-5, 1e-3, 0.1]),
    "momentum": lambda d, p: 0.1,
    "p": lambda d, p: d.rng.choice(
        [0.0, 0.2, 0.5]
        if "dropout" in d.form.name.lower()
        else [1, 2, 3, math.inf, 0.5, 0]
    ),
    "ord": lambda d, p: d.rng.choice([1, 2, 3, math.inf, -math.inf, 0.5, 0]),
    "train": lambda d, p: d.rng.random() < 0.2,
    "training": lambda d, p: d.rng.random() < 0.2,
    "mode": _mode,
    "reduce": _mode,
    "correction": lambda d, p: d.rng.choice([0, 1, 2]),
    "decimals": lambda d, p: d.rng.randint(-1, 3),
    "diagonal": lambda d, p: d.rng.randint(-2, 2),
    "offset": lambda d, p: d.rng.randint(-2, 2),
    "start": lambda d, p: _slice_start(d),
    "end": lambda d, p: d.rng.randint(-_size_of_dim(d), _size_of_dim(d) + 2),
    "step": lambda d, p: d.rng.randint(1, 3),
    "length": lambda d, p: d.rng.randint(
        1, max(_size_of_dim(d) - d.ctx.get("start", 0), 1)
    ),
    "index": lambda d, p: d.rng.randint(-_size_of_dim(d), _size_of_dim(d) - 1),
    "num_classes": lambda d, p: d.rng.choice([-1, 6, 8]),
    "padding_idx": lambda d, p: d.rng.choice(
        [-1, 0]
        + ([d.ctx["rows"] - 1] if d.ctx.get("rows") else [])
        + ([None] if "?" in p.kind else [])
    ),
    "max_norm": lambda d, p: None,
    "norm_type": lambda d, p: 2.0,
    "scale_factor": lambda d, p: d.rng.choice([0.5, 1.5, 2.0, 3.0]),
    "scales": lambda d, p: [d.rng.choice([0.5, 1.5, 2.0])] * max(_x(d).dim() - 2, 1),
    "divisor_override": lambda d, p: d.rng.randint(1, 3),
    "dropout_p": lambda d, p: 0.0,
    "scale": lambda d, p: (
        d.rng.choice([None, 0.3, 1.0]) if "?" in p.kind else _scalar(d, p)
    ),
    "normalized_shape": lambda d, p: list(
        _x(d).shape[-d.rng.randint(1, max(min(_x(d).dim(), 2), 1)) :]
    ),
    "in_channels": lambda d, p: _channels(d),
    "num_features": lambda d, p: _channels(d),
    "num_channels": lambda d, p: _channels(d),
    "in_features": lambda d, p: _x(d).shape[-1] if _x(d).dim() else 1,
    "out_channels": lambda d, p: d.rng.randint(1, 6),
    "out_features": lambda d, p: d.rng.randint(1, 9),
    "num_embeddings": lambda d, p: d.ctx.get("rows", 8),
    "embedding_dim": lambda d, p: d.rng.randint(1, 6),
    "num_groups": lambda d, p: d.rng.choice(
        [g for g in (1, 2, 3) if _channels(d) % g == 0]
    ),
    "start_dim": lambda d, p: _dim(d),
    "end_dim": lambda d, p: _dim(d),
    "inplace": lambda d, p: False,
    "sorted": lambda d, p: True,  # topk(sorted=False): torch leaves the order open
    "dtype": lambda d, p: {"dtype": d.rng.choice(_DTYPES)},
    "_weight": lambda d, p: None,
}
for _n in ("dim0", "dim1", "dim2", "axis0", "axis1", "source", "destination"):
    _BY_NAME[_n] = lambda d, p: _dim(d)


def _factor_sum(d: Draft, n: int) -> list[int]:
    parts, left = [], n
    while left > 0:
        k = d.rng.randint(1, left)
        parts.append(k)
        left -= k
    return parts


def scalar_arg(d: Draft, p: Param) -> tuple[Any, Any]:
    kind = p.kind.rstrip("?")
    if p.choices:
        value = d.rng.choice(p.choices)
    elif p.name in _STRINGS:
        value = d.rng.choice(_STRINGS[p.name])
    elif p.name in _BY_NAME:
        value = _BY_NAME[p.name](d, p)
    elif kind in ("float", "number"):
        value = _scalar(d, p)
    elif kind == "int":
        value = d.rng.randint(0, 3)
    elif kind == "bool":
        value = d.rng.random() < 0.5
    elif kind == "int[]":
        value = random_shape(d.rng, d.rng.randint(1, 2))
    elif kind == "float[]":
        value = [d.rng.choice([0.5, 1.5, 2.0]) for _ in range(d.rng.randint(1, 2))]
    elif kind == "bool[]":
        value = [d.rng.random() < 0.5 for _ in range(3)]
    elif kind == "dtype":
        value = {"dtype": d.rng.choice(_DTYPES)}
    else:
        raise _skip(f"no rule for {p.name}: {p.kind}")
    concrete = value
    if isinstance(value, dict) and "dtype" in value:
        from .values import DTYPES

        concrete = DTYPES[value["dtype"]]
    return value, concrete


_ = DIMS  # re-exported for rules that draw sizes
