"""The drawing rules of synth.Draft: shapes, and arguments by parameter name.

Rules are keyed by the parameter's name (``dim``, ``size``, ``kernel_size`` ...) and
refined by the op's name where one name means different things (``size`` of ``view``
is a factorization, of ``expand`` a broadcast, of ``zeros`` any shape). Every rule
returns ``(encoded, concrete)``; the concrete value feeds later rules (``index`` is
drawn below the size of the ``dim`` drawn before it).
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from .catalog import Param
    from .synth import Draft

__all__ = ["random_shape", "partner_shape", "primary", "tensor_arg", "tensor_list"]

DIMS = [1, 1, 2, 2, 3, 3, 4, 5, 7, 8, 16]
MAX_NUMEL = 512


def random_shape(rng: random.Random, rank: int | None = None) -> list[int]:
    rank = rank if rank is not None else rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4])
    for _ in range(20):
        shape = [rng.choice(DIMS) for _ in range(rank)]
        if math.prod(shape) <= MAX_NUMEL:
            return shape
    return [1] * rank


def partner_shape(rng: random.Random, shape: list[int]) -> list[int]:
    """A shape for a second operand: equal, broadcast-compatible, or one that a
    contraction or a channel-wise op wants."""
    r = len(shape)
    choices = ["same", "same", "bcast", "bcast", "scalar"]
    if r >= 2:
        choices += ["swap", "rows", "cols"]
    if r >= 1:
        choices += ["last", "channel"]
    pick = rng.choice(choices)
    if pick == "bcast":
        keep = shape[rng.randint(0, r) :] if r else []
        return [1 if rng.random() < 0.4 else d for d in keep]
    if pick == "scalar":
        return []
    if pick == "swap":
        return shape[:-2] + [shape[-1], shape[-2]]
    if pick == "rows":
        return [rng.choice(DIMS), shape[-1]]
    if pick == "cols":
        return [shape[-1], rng.choice(DIMS)]
    if pick == "last":
        return [shape[-1]]
    if pick == "channel":
        return [shape[1] if r > 1 else shape[0]]
    return list(shape)


# ---- tensors --------------------------------------------------------------------------
_INDEX_NAMES = {"index", "indices", "offsets", "target", "input_indices"}
_BOOL_NAMES = {"mask", "condition"}


def _index(d: Draft, shape, high: int, state: bool | None = None) -> tuple[Any, Any]:
    state = d.rng.random() < 0.5 if state is None else state
    return d.fresh(shape, "int64", state=state, low=0, high=max(high, 1))


def _bound(d: Draft) -> int:
    """The size an index of the op's `dim` (or of the smallest dim) must stay below."""
    x = d.primary
    if x is None or x.dim() == 0:
        return 1
    dim = d.ctx.get("dim")
    if isinstance(dim, int) and -x.dim() <= dim < x.dim():
        return x.shape[dim]
    return min(x.shape)


def primary(d: Draft, p: Param) -> tuple[Any, Any] | None:
    name, op = p.name, d.form.name
    if op in ("embedding", "Embedding") or (
        op == "embedding_bag" and p.name == "input"
    ):
        rows = d.ctx.get("num_embeddings") or d.rng.randint(2, 9)
        d.ctx["rows"] = rows
        return _index(d, random_shape(d.rng, d.rng.randint(1, 2)), rows, state=False)
    if name in _BOOL_NAMES:
        got = d.existing(lambda v: v.dtype == torch.bool)
        if got is not None and d.rng.random() < 0.6:
            return got
        return d.fresh(random_shape(d.rng), "bool")
    if op == "one_hot":
        return _index(d, random_shape(d.rng, d.rng.randint(1, 2)), d.rng.randint(1, 6))
    return None


def tensor_arg(d: Draft, p: Param) -> tuple[Any, Any] | None:
    x, name, op = d.primary, p.name, d.form.name
    if x is None:
        return None
    if name in _INDEX_NAMES:
        return _index_arg(d, p)
    if name in _BOOL_NAMES:
        return d.fresh(list(x.shape), "bool", state=d.rng.random() < 0.3)
    if op in ("embedding", *_BAGS):
        if name == "weight":
            return d.fresh([d.ctx.get("rows", 8), d.rng.randint(1, 6)], state=True)
        bag = d.ctx.get("input", d.ctx.get("indices"))
        if name == "per_sample_weights" and isinstance(bag, torch.Tensor):
            dtype = str(d.ctx.get("weight", x).dtype).removeprefix("torch.")
            return d.fresh(list(bag.shape), dtype)
    special = _weights(d, p, list(x.shape))
    return special


_BAGS = {"embedding_bag", "_embedding_bag", "_embedding_bag_forward_only"}


def _index_arg(d: Draft, p: Param) -> tuple[Any, Any]:
    """An index tensor below the size it indexes (torch's internal embedding_bag ops
    do not check theirs: out-of-range indices or offsets corrupt its memory)."""
    x, op = d.primary, d.form.name
    if op in _BAGS and p.name == "indices":  # the ATen form: weight first
        if x.dim() != 2:
            raise _skip("the ATen embedding_bag needs a 2-d weight")
        d.ctx["rows"] = x.shape[0]
        return _index(d, [d.rng.randint(1, 6)], x.shape[0])
    if op in _BAGS and p.name == "offsets":
        bag = d.ctx.get("input", d.ctx.get("indices"))
        n = bag.numel() if isinstance(bag, torch.Tensor) else 1
        starts = sorted({0, *d.rng.sample(range(n), min(n, d.rng.randint(0, 2)))})
        # ending with len(input): what include_last_offset=True requires (torch's
        # kernels disagree with each other otherwise), an empty last bag without it
        starts.append(n)
        return d.fresh([len(starts)], "int64", state=True, values=starts)
    shape = list(x.shape) if d.rng.random() < 0.5 else [d.rng.randint(1, 5)]
    if d.rng.random() < 0.3 and x.dim():
        shape = [d.rng.randint(1, s) for s in x.shape]
    return _index(d, shape, _bound(d))


def _weights(d: Draft, p: Param, shape: list[int]) -> tuple[Any, Any] | None:
    """Weights, biases and statistics of the nn ops, shaped by the input."""
    op, name, rng = d.form.name, p.name, d.rng
    channels = shape[1] if len(shape) > 1 else (shape[0] if shape else 1)
    if op in ("conv1d", "conv2d", "convolution") and name == "weight":
        spatial = max(len(shape) - 2, 1) if op == "convolution" else int(op[4])
        c_in = shape[1] if len(shape) == spatial + 2 else shape[0] if shape else 1
        groups = rng.choice([g for g in (1, 2, 3) if c_in % g == 0])
        d.ctx["groups_hint"] = groups
        out = groups * rng.randint(1, 3)
        kernel = [rng.randint(1, min(3, s)) for s in shape[-spatial:]] if shape else [1]
        return d.fresh([out, c_in // groups, *kernel], state=True)
    if op in ("conv1d", "conv2d", "convolution") and name == "bias":
        w = d.ctx.get("weight")
        return d.fresh([w.shape[0] if w is not None else 1], state=True)
    if op in ("linear",) and name == "weight":
        return d.fresh([rng.randint(1, 9), shape[-1] if shape else 1], state=True)
    if op in ("linear",) and name == "bias":
        w = d.ctx.get("weight")
        return d.fresh([w.shape[0] if w is not None else 1], state=True)
    if "norm" in op and name in ("weight", "bias", "running_mean", "running_var"):
        if op.endswith("layer_norm"):
            normalized = d.ctx.get("normalized_shape") or shape[-1:]
            return d.fresh(list(normalized), state=True)
        positive = "positive" if name == "running_var" else "normal"
        ref, t = d.fresh([channels], state=True)
        d.pool.new_state[ref["p"]].profile = positive
        return ref, t
    return None


def tensor_list(d: Draft, p: Param) -> tuple[Any, Any]:
    """cat/stack operands (equal shapes), or ``x[i, :, j]``'s index list."""
    if p.kind == "Tensor?[]":
        x = d.primary
        if x is None or x.dim() == 0:
            raise _skip("no dims to index")
        refs, vals = [], []
        for size in x.shape[: d.rng.randint(1, x.dim())]:
            if d.rng.random() < 0.4:
                refs.append(None)
                vals.append(None)
            else:
                ref, t = _index(d, [d.rng.randint(1, 4)], size)
                refs.append(ref)
                vals.append(t)
        return refs, vals
    ref, first = d.first_tensor(p)
    d.primary = first
    refs, vals = [ref], [first]
    for _ in range(d.rng.randint(0, 2)):
        r, t = (
            d.other_tensor(p)
            if d.rng.random() < 0.3
            else d.fresh(list(first.shape), str(first.dtype)[6:])
        )
        refs.append(r)
        vals.append(t)
    return refs, vals


def _skip(why: str) -> Exception:
    from .synth import Skip

    return Skip(why)
