"""Arguments for one call of a catalog form: drawn, then checked by running the call.

``Draft`` draws a call's arguments from its parameter list (catalog.Param): the first
tensor is an existing value of the graph (or a fresh input), other tensors are values
of a compatible shape or fresh inputs and parameters, and scalars come from rules keyed
by the parameter's name and kind (``dim`` is a dim of the first tensor, ``size`` of a
``view`` a factorization of its numel ...), with per-op rules (``shapes.py``) where the
name alone is not enough. A draw may still be invalid: the generator runs it eagerly
and throws it away if torch refuses it (NNSmith's rejection sampling, without a
solver).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

import torch

from . import scalars, shapes
from .catalog import Form, Param
from .values import TensorSpec, make

__all__ = ["Draft", "Pool", "SCALARS"]

#: scalar arguments: ordinary, exact, edge (0, -0, inf, nan) and large values
SCALARS = [
    0.0,
    1.0,
    -1.0,
    2.0,
    0.5,
    -3.25,
    1e-3,
    7.0,
    -0.0,
    1e4,
    3,
    -2,
    math.inf,
    math.nan,
]
FLOAT_DTYPES = ["float32", "float32", "float32", "float64", "float16", "bfloat16"]
INPUT_DTYPES = FLOAT_DTYPES * 3 + ["int64", "int64", "int32", "bool", "bool", "uint8"]
MAX_INPUTS = 6


class Skip(Exception):
    """This draw cannot be made (no value fits): try another."""


@dataclass
class Pool:
    """What a draw may read: the graph's values so far as (reference, concrete value)
    pairs, and how many inputs and state entries exist."""

    values: list[tuple[dict, Any]]
    n_inputs: int
    n_state: int
    new_inputs: list[TensorSpec] = field(default_factory=list)
    new_state: dict[str, TensorSpec] = field(default_factory=dict)

    def tensors(self) -> list[tuple[dict, torch.Tensor]]:
        return [(r, v) for r, v in self.values if isinstance(v, torch.Tensor)]


class Draft:
    def __init__(self, rng: random.Random, pool: Pool, form: Form) -> None:
        self.rng, self.pool, self.form = rng, pool, form
        self.ctx: dict[str, Any] = {}  # parameter name -> concrete value drawn
        self.primary: torch.Tensor | None = None

    # ---- tensors ---------------------------------------------------------------------
    def seed(self) -> int:
        return self.rng.randrange(2**31)

    def fresh(self, shape, dtype="float32", *, state=False, **kw) -> tuple[Any, Any]:
        """A new input (or parameter/buffer) tensor: (encoded reference, tensor)."""
        profile = self.rng.choice(
            ["normal"] * 4 + ["edges", "offset", "small", "nonfinite"]
        )
        layout = self.rng.choice(
            ["contiguous"] * 5 + ["transposed", "strided", "offset", "expanded"]
        )
        spec = TensorSpec(list(shape), dtype, self.seed(), profile, layout, **kw)
        pool = self.pool
        if state or len(pool.new_inputs) + pool.n_inputs >= MAX_INPUTS:
            spec.layout = "contiguous"
            name = f"{'p' if dtype.startswith(('float', 'bfloat')) else 'b'}{pool.n_state + len(pool.new_state)}"
            pool.new_state[name] = spec
            return {"p": name}, make(spec)
        pool.new_inputs.append(spec)
        return {"x": pool.n_inputs + len(pool.new_inputs) - 1}, make(spec)

    def existing(self, want=None) -> tuple[Any, Any] | None:
        """An existing tensor value (recent ones preferred) satisfying `want`."""
        found = [(r, v) for r, v in self.pool.tensors() if want is None or want(v)]
        if not found:
            return None
        nodes = [f for f in found if "v" in f[0]]
        roll = self.rng.random()
        if nodes and roll < 0.45:
            return nodes[-1]  # chains: the latest result
        if nodes and roll < 0.75:
            return self.rng.choice(nodes[-4:])
        return self.rng.choice(found)

    def first_tensor(self, p: Param) -> tuple[Any, Any]:
        special = shapes.primary(self, p)
        if special is not None:
            return special
        if self.rng.random() < 0.85:
            got = self.existing()
            if got is not None:
                return got
        return self.fresh(shapes.random_shape(self.rng), self.rng.choice(INPUT_DTYPES))

    def other_tensor(self, p: Param) -> tuple[Any, Any]:
        """A second tensor operand: a value of a fitting shape, or a fresh one."""
        special = shapes.tensor_arg(self, p)
        if special is not None:
            return special
        x = self.primary
        if x is None:
            return self.first_tensor(p)
        if self.rng.random() < 0.5:
            same = self.existing(lambda v: v.shape == x.shape and v.dtype == x.dtype)
            if same is not None:
                return same
        shape = shapes.partner_shape(self.rng, list(x.shape))
        dtype = x.dtype if self.rng.random() < 0.8 else torch.float32
        name = str(dtype).removeprefix("torch.")
        return self.fresh(shape, name, state=self.rng.random() < 0.3)

    # ---- the call --------------------------------------------------------------------
    def arg(self, p: Param) -> tuple[Any, Any]:
        kind = p.kind.rstrip("?")
        if kind == "Tensor":
            if self.primary is None:
                ref, t = self.first_tensor(p)
                self.primary = t
                return ref, t
            return self.other_tensor(p)
        if kind in ("Tensor[]", "Tensor?[]"):
            return shapes.tensor_list(self, p)
        return scalars.scalar_arg(self, p)

    def include(self, p: Param) -> bool:
        if p.kind == "skip":
            if p.required:
                raise Skip(f"cannot draw {p.name}")
            return False
        return p.required or self.rng.random() < 0.4

    def call(self, params: list[Param]) -> tuple[list, dict]:
        """Positional arguments up to the first one left out, keywords after."""
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        positional = True
        for p in params:
            if not self.include(p):
                positional = False
                continue
            ref, value = self.arg(p)
            self.ctx[p.name] = value
            if positional and not p.kwarg_only and self.form.kind != "module":
                args.append(ref)
            else:
                if self.form.kind == "operator":
                    raise Skip("operators take no keywords")
                kwargs[p.name] = ref
        return args, kwargs
