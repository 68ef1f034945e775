"""DynamicCompiledModule: one static build per concrete input shape, compiled on first use.

Cuvil's kernels have static shapes (codegen/plan.py), so a model compiled with
``dynamic_shapes`` / ``dynamic=True`` is a cache keyed by the inputs' shapes and dtypes:
a new key checks each dim against what was declared (a static dim must keep its
compiled size, a dynamic one must stay in its Dim's range) and compiles a
specialization through the normal pipeline with the call's own inputs as the example
inputs; a known key runs its build. docs/DYNAMIC.md has the design.

``CUVIL_LOG_DYNAMIC=1`` prints one line on stderr per new specialization; the same
line always goes to the ``cuvil.dynamic`` logger at INFO.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import torch

from ..errors import CuvilRuntimeError

__all__ = ["DynamicCompiledModule", "CacheInfo", "shape_key", "LOG_ENV"]

LOG_ENV = "CUVIL_LOG_DYNAMIC"
_log = logging.getLogger("cuvil.dynamic")

# per input, {dim: (name, min, max)}; max None = unbounded (frontend/dynamic_shapes.py)
DimRanges = Sequence[dict[int, tuple[str, int, "int | None"]]]
Key = tuple[Any, ...]


class CacheInfo(NamedTuple):
    hits: int
    misses: int
    compiles: int
    shapes: list[
        tuple[tuple[int, ...], ...]
    ]  # the input shapes of each build, in order


def shape_key(inputs: Sequence[Any]) -> Key:
    """What tells two calls' builds apart: each tensor's shape and dtype, each other
    argument's value (torch.compile's graphs take sizes as ints)."""
    return tuple(
        (tuple(x.shape), x.dtype) if isinstance(x, torch.Tensor) else ("value", x)
        for x in inputs
    )


def _shapes(key: Key) -> tuple[tuple[int, ...], ...]:
    return tuple(k[0] if k[0] != "value" else (k[1],) for k in key)


class DynamicCompiledModule:
    """Callable like CompiledModule; builds per input shape (module docstring).

    `build(inputs)` compiles one specialization for `inputs` (a CompiledModule);
    `first` is the build of the example inputs; `dims` the dynamic dims' ranges per
    input (empty: check nothing, as for torch.compile's graphs); `names` the inputs'
    names for messages. Attributes CompiledModule has and this one not (``kernels``,
    ``llvm_ir``, ``profile``, ``module``, ``debug_key``...) are the last build's.
    """

    def __init__(
        self,
        build: Callable[[list[Any]], Any],
        first: Any | None,
        example_inputs: Sequence[Any],
        dims: DimRanges | None = None,
        names: Sequence[str] | None = None,
        *,
        log: bool | None = None,
        who: str = "the model",
    ) -> None:
        self._build, self._lock = build, threading.Lock()
        self._example = [
            (tuple(x.shape), x.dtype) if isinstance(x, torch.Tensor) else None
            for x in example_inputs
        ]
        self._dims = list(dims) if dims is not None else None
        self._names = list(names or [f"input{i}" for i in range(len(example_inputs))])
        self._log = os.environ.get(LOG_ENV) == "1" if log is None else log
        self._who = who
        self.specializations: dict[Key, Any] = {}
        self.hits = self.misses = 0
        self.current = first
        if first is not None:
            self.specializations[shape_key(example_inputs)] = first
            self._announce(shape_key(example_inputs))

    def __call__(self, *inputs: Any) -> Any:
        return self.specialize(inputs)(*inputs)

    def specialize(self, inputs: Sequence[Any]) -> Any:
        """The build for `inputs`' shapes, compiled now if it is new (counted)."""
        key = shape_key(inputs)
        found = self.specializations.get(key)
        if found is not None:
            self.hits += 1
        else:
            with self._lock:
                found = self.specializations.get(key)
                if found is None:
                    self._check(inputs)
                    self.misses += 1
                    found = self._build(list(inputs))
                    self.specializations[key] = found
                    self._announce(key)
                else:
                    self.hits += 1
        self.current = found
        return found

    def cache_info(self) -> CacheInfo:
        shapes = [_shapes(k) for k in self.specializations]
        return CacheInfo(self.hits, self.misses, len(shapes), shapes)

    @property
    def info(self) -> str:
        """One line: the dynamic dims, the builds and the cache's counts."""
        c = self.cache_info()
        shown = ", ".join(_fmt(s) for s in c.shapes[:6]) + (
            ", ..." if len(c.shapes) > 6 else ""
        )
        front = getattr(self.current, "frontend", None)
        return (
            f"dynamic {self._who}: {self._declared()}; "
            + (f"frontend {front}; " if front else "")
            + f"{c.compiles} "
            f"specialization(s) [{shown}], {c.hits} hits, {c.misses} misses"
        )

    def __repr__(self) -> str:
        return f"<DynamicCompiledModule {self.info}>"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or self.__dict__.get("current") is None:
            raise AttributeError(name)
        return getattr(self.__dict__["current"], name)

    def _announce(self, key: Key) -> None:
        line = (
            f"cuvil: compiled specialization {len(self.specializations)} of "
            f"{self._who} for {_fmt(_shapes(key))}"
        )
        _log.info(line)
        if self._log:
            print(line, file=sys.stderr)

    def _declared(self) -> str:
        if self._dims is None:
            return "shapes of each call"
        parts = [
            f"{self._names[i]}[{d}]={_range(r)}"
            for i, dims in enumerate(self._dims)
            for d, r in sorted(dims.items())
        ]
        return ", ".join(parts) or "no dynamic dims"

    def _check(self, inputs: Sequence[Any]) -> None:
        """A clear error for a call the declared dims do not allow."""
        if len(inputs) != len(self._example):
            raise CuvilRuntimeError(
                f"{self._who} takes {len(self._example)} inputs, got {len(inputs)}"
            )
        if self._dims is None:
            return
        for i, (x, ex, dims) in enumerate(zip(inputs, self._example, self._dims)):
            self._check_one(i, x, ex, dims)

    def _check_one(self, i: int, x: Any, ex, dims) -> None:
        what = f"input {i} ({self._names[i]})"
        if ex is None:
            return
        shape, dtype = ex
        if not isinstance(x, torch.Tensor):
            raise CuvilRuntimeError(f"{what} must be a tensor, got {type(x).__name__}")
        if x.dim() != len(shape) or x.dtype != dtype:
            raise CuvilRuntimeError(
                f"{what} is {tuple(x.shape)} {x.dtype}; it was compiled as a "
                f"{len(shape)}-d {dtype} tensor",
                hint="the rank and dtype of an input cannot change between calls",
            )
        for d, (size, was) in enumerate(zip(x.shape, shape)):
            r = dims.get(d)
            if r is None and size != was:
                raise CuvilRuntimeError(
                    f"{what} dim {d} is {size}, but that dim is static (compiled "
                    f"for {was})",
                    hint=f"declare it dynamic: options={{'dynamic_shapes': "
                    f"{{'{self._names[i]}': {{{d}: torch.export.Dim('d{d}')}}}}}}"
                    " (if torch.export specialized it, the model depends on its size)",
                )
            if r is not None and not (r[1] <= size and (r[2] is None or size <= r[2])):
                raise CuvilRuntimeError(
                    f"{what} dim {d} is {size}, outside the range declared for it: "
                    f"{_range(r)}",
                    hint=f"widen the Dim: torch.export.Dim('{r[0]}', "
                    f"min={min(r[1], size)}, max={max(r[2] or size, size)})",
                )


def _range(r: tuple[str, int, int | None]) -> str:
    name, lo, hi = r
    return f"{name} in [{lo}, {'inf' if hi is None else hi}]"


def _fmt(shapes: tuple[tuple[int, ...], ...]) -> str:
    return "(" + ", ".join("x".join(map(str, s)) or "()" for s in shapes) + ")"
