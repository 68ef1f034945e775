"""Which input dims may change between calls, and within which range (docs/DYNAMIC.md).

``derive_dims`` turns ``cuvil.compile``'s ``dynamic_shapes`` (torch.export's spelling,
or ``{input: {dim: "name"}}``) or ``dynamic=True`` (dim 0 of every input) into
torch.export's form, exports the model once with it, so that torch checks the model is
shape-polymorphic in those dims, and reads each dim's range from the exported program.
The result is plain data: per input, ``{dim: (name, min, max)}`` (max None: unbounded)
for the dims that stay dynamic; every other dim is static.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

import torch
from torch.export import Dim

from ..errors import FrontendError
from .auto import first_line
from .module_state import preserved_state

__all__ = ["derive_dims", "normalize"]

DimRanges = list[dict[int, tuple[str, int, int | None]]]
_HINTS = (type(Dim.AUTO),)


def _names(model: torch.nn.Module, n: int) -> list[str]:
    try:
        params = list(inspect.signature(model.forward).parameters)
    except (TypeError, ValueError):
        params = []
    return (params + [f"input{i}" for i in range(len(params), n)])[:n]


def normalize(
    model: torch.nn.Module, inputs: Sequence[torch.Tensor], spec: Any, dynamic: bool
) -> list[dict[int, Any]]:
    """Per input, {dim: Dim | Dim.AUTO-like hint}; strings become shared named Dims."""
    names = _names(model, len(inputs))
    if spec is None:
        if not dynamic:
            return [{} for _ in inputs]
        return [{0: Dim.AUTO} if x.dim() else {} for x in inputs]
    if isinstance(spec, Mapping):
        per = [spec.get(i, spec.get(name)) for i, name in enumerate(names)]
        unknown = [k for k in spec if k not in names and k not in range(len(inputs))]
        if unknown:
            raise FrontendError(
                f"dynamic_shapes names {unknown[0]!r}, not an input of "
                f"{type(model).__name__}",
                hint=f"inputs: {', '.join(names)} (or their indices)",
            )
    elif isinstance(spec, (list, tuple)) and len(spec) == len(inputs):
        per = list(spec)
    else:
        raise FrontendError(
            "dynamic_shapes must be a dict (input name or index -> {dim: Dim}) or a "
            f"tuple with one entry per input ({len(inputs)}), got {spec!r}",
            hint='e.g. options={"dynamic_shapes": {"x": {0: torch.export.Dim("batch")}}}',
        )
    named: dict[str, Any] = {}
    return [_one(p, x, names[i], named) for i, (p, x) in enumerate(zip(per, inputs))]


def _one(p: Any, x: torch.Tensor, name: str, named: dict[str, Any]) -> dict[int, Any]:
    if p is None:
        return {}
    if not isinstance(x, torch.Tensor):  # a list of images (detection models), a dict
        raise FrontendError(
            f"dynamic_shapes of input '{name}': the input is a {type(x).__name__}, "
            "not a tensor; Cuvil's dynamic shapes mark dims of tensor inputs",
            hint="pass the tensors as separate inputs (or stacked in one tensor), or "
            "compile each shape without dynamic_shapes",
        )
    if isinstance(p, (list, tuple)):
        p = dict(enumerate(p))
    if not isinstance(p, Mapping):
        raise FrontendError(
            f"dynamic_shapes of input '{name}' must be {{dim: Dim}}, got {p!r}"
        )
    out = {}
    for d, v in p.items():
        if not isinstance(d, int) or not -x.dim() <= d < x.dim():
            raise FrontendError(
                f"dynamic_shapes of input '{name}' names dim {d!r}; it has "
                f"{x.dim()} dims"
            )
        if isinstance(v, str):
            v = named.setdefault(v, Dim(v))
        if v is not None and v is not Dim.STATIC:
            out[d % x.dim()] = v
    return out


def _widened(x: torch.Tensor, dims: Mapping[int, Any]) -> torch.Tensor:
    """`x` with each dynamic dim of size 0 or 1 repeated to 2 (torch.export specializes
    sizes 0 and 1; the specializations are compiled per shape anyway)."""
    for d in dims:
        if x.shape[d] < 2:
            x = torch.cat([x] * 2, d).narrow(d, 0, 2) if x.shape[d] else x
    return x


def derive_dims(
    model: torch.nn.Module,
    inputs: Sequence[torch.Tensor],
    spec: Any,
    dynamic: bool = False,
) -> DimRanges:
    """The dynamic dims' ranges, checked by torch.export (module docstring)."""
    per = normalize(model, inputs, spec, dynamic)
    if not any(per):
        return [{} for _ in inputs]
    wide = tuple(_widened(x, dims) for x, dims in zip(inputs, per))
    try:
        with torch.no_grad(), preserved_state(model):
            ep = torch.export.export(
                model, wide, dynamic_shapes=tuple(p or None for p in per)
            )
    except Exception as e:
        raise FrontendError(
            f"torch.export could not prove {type(model).__name__} shape-polymorphic in "
            f"the dims declared dynamic: {first_line(e)}",
            hint="declare only dims the model does not specialize (Dim.AUTO lets "
            "torch decide), or widen/narrow the Dim's min and max",
        ) from e
    return _ranges(ep, per)


def _finite(bound) -> int | None:
    try:
        return int(bound) if bound.is_finite else None
    except (TypeError, ValueError, AttributeError):  # torch's int_oo
        return None


def _ranges(ep, per: list[dict[int, Any]]) -> DimRanges:
    user = set(ep.graph_signature.user_inputs)
    vals = [n.meta["val"] for n in ep.graph.nodes if n.op == "placeholder"]
    vals = [
        v
        for n, v in zip([n for n in ep.graph.nodes if n.op == "placeholder"], vals)
        if n.name in user
    ]
    out: DimRanges = []
    for val, dims in zip(vals, per):
        got = {}
        for d, decl in dims.items():
            size = val.shape[d]
            if not isinstance(size, torch.SymInt):
                continue  # torch specialized it (Dim.AUTO): static
            expr = size.node.expr
            vr = ep.range_constraints.get(expr)
            lo = getattr(decl, "min", None)
            lo = 1 if lo is None or isinstance(decl, _HINTS) else max(int(lo), 1)
            hi = None
            if vr is not None:
                if (
                    int(vr.lower) > 2
                ):  # the model itself needs more than torch's 0/1 cut
                    lo = max(lo, int(vr.lower))
                hi = _finite(vr.upper)
            got[d] = (
                str(expr) if not hasattr(decl, "__name__") else decl.__name__,
                lo,
                hi,
            )
        out.append(got)
    return out
