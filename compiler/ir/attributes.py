"""Op attributes: the Python values they hold, their text form, and per-op attribute specs.

Attribute values are plain Python values: ``int``, ``float``, ``bool``, ``str``, ``DType``,
``SymbolRef``, tuples of ints (a ``SymDim`` may stand in a shape list) or floats, and
``torch.Tensor`` for dense constants. An attribute whose value is None is absent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from .location import quote
from .types import DType, SymDim, TensorType

__all__ = ["SymbolRef", "AttrSpec", "REQUIRED", "format_attr", "check_attr"]


@dataclass(frozen=True)
class SymbolRef:
    """A reference to a module-level symbol (a param): ``@layer1.0.conv1.weight``."""

    name: str

    def __str__(self) -> str:
        return "@" + (self.name if _is_bare_symbol(self.name) else quote(self.name))


def _is_bare_symbol(name: str) -> bool:
    return (
        bool(name) and all(c.isalnum() or c in "_.$-" for c in name) and name.isascii()
    )


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class AttrSpec:
    """What an op accepts for one attribute.

    kind: int | float | bool | str | ints | floats | dtype | symbol | dense | scalar
    (``scalar`` = int, float or bool). `length` fixes a list length; `min` bounds ints;
    `choices` lists the allowed strings; `sym` lets a SymDim stand in an int list.
    """

    kind: str
    default: Any = REQUIRED
    length: int | None = None
    min: int | None = None
    choices: tuple[str, ...] | None = None
    sym: bool = False


def format_float(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    text = repr(float(x))
    return text if any(c in text for c in ".en") else text + ".0"


def _format_scalar(x: Any) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        return format_float(x)
    if isinstance(x, SymDim):
        return str(x)
    raise TypeError(f"cannot print attribute element {x!r}")


def format_dense(t: torch.Tensor) -> str:
    flat = t.detach().reshape(-1).tolist()
    if t.dtype.is_floating_point:
        flat = [float(v) for v in flat]
    # compare texts, not values: 0.0 == -0.0 and nan != nan, yet only equal texts may splat
    items = [_format_scalar(v) for v in flat]
    splat = bool(items) and items.count(items[0]) == len(items)
    body = items[0] if splat else "[" + ", ".join(items) + "]"
    return f"dense<{body}> : {TensorType.of(t)}"


def format_attr(value: Any) -> str:
    """The text form of an attribute value."""
    if isinstance(value, torch.Tensor):
        return format_dense(value)
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, (DType, SymbolRef)):
        return str(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(_format_scalar(v) for v in value) + "]"
    return _format_scalar(value)


_KIND_CHECKS = {
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, float),
    "bool": lambda v: isinstance(v, bool),
    "str": lambda v: isinstance(v, str),
    "dtype": lambda v: isinstance(v, DType),
    "symbol": lambda v: isinstance(v, SymbolRef),
    "dense": lambda v: isinstance(v, torch.Tensor),
    "scalar": lambda v: isinstance(v, (int, float)),
    "ints": lambda v: isinstance(v, tuple),
    "floats": lambda v: isinstance(v, tuple),
}

_KIND_NAMES = {
    "int": "an integer",
    "float": "a float",
    "bool": "true or false",
    "str": "a string",
    "dtype": "an element type (f32, i64, ...)",
    "symbol": "a symbol (@name)",
    "dense": "a dense tensor (dense<...> : tensor<...>)",
    "scalar": "a number",
    "ints": "a list of integers",
    "floats": "a list of floats",
}


def check_attr(name: str, value: Any, spec: AttrSpec) -> str | None:
    """Why `value` does not satisfy `spec`, or None when it does."""
    if not _KIND_CHECKS[spec.kind](value):
        return f"attribute '{name}' must be {_KIND_NAMES[spec.kind]}, got {format_attr(value)}"
    if spec.kind in ("ints", "floats"):
        return _check_list(name, value, spec)
    if spec.kind == "int" and spec.min is not None and value < spec.min:
        return f"attribute '{name}' must be >= {spec.min}, got {value}"
    if spec.kind == "str" and spec.choices and value not in spec.choices:
        allowed = ", ".join(quote(c) for c in spec.choices)
        return f"attribute '{name}' must be one of {allowed}, got {quote(value)}"
    return None


def _check_list(name: str, value: tuple, spec: AttrSpec) -> str | None:
    if spec.length is not None and len(value) != spec.length:
        return f"attribute '{name}' must have {spec.length} elements, got {len(value)}"
    for v in value:
        ok_sym = spec.sym and isinstance(v, SymDim)
        if spec.kind == "ints" and not ok_sym and not _KIND_CHECKS["int"](v):
            return f"attribute '{name}' must hold integers, got {format_attr(value)}"
        if spec.kind == "floats" and not isinstance(v, float):
            return f"attribute '{name}' must hold floats, got {format_attr(value)}"
        if (
            spec.kind == "ints"
            and spec.min is not None
            and isinstance(v, int)
            and v < spec.min
        ):
            return f"attribute '{name}' elements must be >= {spec.min}, got {format_attr(value)}"
    return None
