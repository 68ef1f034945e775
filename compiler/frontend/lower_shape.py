"""Lowering rules for shapes and data movement: view/reshape, permute, squeeze, expand,
cat/stack, split/chunk, indexing, and size queries (which produce Python values)."""

from __future__ import annotations

import operator
from typing import Any

import torch

from ..errors import UnsupportedOpError
from ..ir import ops
from ..ir.core import Value
from ..ir.types import SymDim
from .context import LazyTensor, LoweringContext
from .registry import aten, lowers

__all__ = ["reshape", "transpose", "unsqueeze", "slice_dim"]


def _sizes(args: tuple) -> tuple:
    """``view(2, 3)`` and ``view((2, 3))`` both give (2, 3)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, torch.Size)):
        return tuple(args[0])
    return tuple(args)


def _dim(d: int, rank: int) -> int:
    return d % rank if rank else 0


def reshape(cx: LoweringContext, x, shape) -> Value:
    v = cx.value(x)
    shape = _resolve_minus_one(tuple(shape), v.type.numel())
    if shape == v.type.shape:
        return v
    return cx.emit(ops.ReshapeOp, v, shape=shape)


def _resolve_minus_one(shape: tuple, numel: int | None) -> tuple:
    """Replace a -1 by its size when everything is static (so the IR shows real sizes)."""
    if -1 not in shape or numel is None or any(isinstance(d, SymDim) for d in shape):
        return shape
    known = _prod(d for d in shape if d != -1)
    if known == 0 or numel % known:
        return shape  # let the op's verifier report it
    return tuple(numel // known if d == -1 else d for d in shape)


def transpose(cx: LoweringContext, x, d0: int, d1: int) -> Value:
    v = cx.value(x)
    rank = v.type.rank
    dims = list(range(rank))
    a, b = _dim(d0, rank), _dim(d1, rank)
    if a == b:
        return v
    dims[a], dims[b] = dims[b], dims[a]
    return cx.emit(ops.PermuteOp, v, dims=tuple(dims))


def unsqueeze(cx: LoweringContext, x, dim: int) -> Value:
    v = cx.value(x)
    d = dim % (v.type.rank + 1)
    return reshape(cx, v, v.type.shape[:d] + (1,) + v.type.shape[d:])


def slice_dim(cx: LoweringContext, x, dim: int, start, end, step: int = 1) -> Value:
    v = cx.value(x)
    d = _dim(dim, v.type.rank)
    size = v.type.shape[d]
    if isinstance(size, SymDim):
        if start in (None, 0) and end is None and step == 1:
            return v
        raise UnsupportedOpError(
            "slicing a dim of symbolic size", node=cx.node_name, where=cx.where()
        )
    s, e, st = slice(start, end, step).indices(size)
    e = max(e, s)
    if (s, e, st) == (0, size, 1):
        return v
    return cx.emit(ops.SliceOp, v, dim=d, start=s, end=e, step=st)


@lowers("view", "reshape", torch.reshape, aten.view, aten.reshape, aten._unsafe_view)
def _view(cx: LoweringContext, x, *shape):
    if len(shape) == 1 and isinstance(shape[0], torch.dtype):  # x.view(torch.int32)
        v = cx.value(x)
        if shape[0] == v.type.dtype.torch:
            return v
        raise UnsupportedOpError(
            f"view as another dtype ({v.type.dtype} as {shape[0]}): a bit cast",
            node=cx.node_name,
            where=cx.where(),
            hint="use .to(dtype) to convert the values",
        )
    return reshape(cx, x, _sizes(shape))


@lowers("view_as", "reshape_as", aten.view_as, aten.reshape_as)
def _view_as(cx: LoweringContext, x, other):
    return reshape(cx, x, cx.value(other).type.shape)


@lowers(torch.flatten, "flatten", aten.flatten)
def _flatten(cx: LoweringContext, x, start_dim=0, end_dim=-1):
    v = cx.value(x)
    rank = v.type.rank
    if rank == 0:
        return reshape(cx, v, (1,))
    s, e = _dim(start_dim, rank), _dim(end_dim, rank)
    merged = v.type.shape[s : e + 1]
    size = -1 if any(isinstance(d, SymDim) for d in merged) else _prod(merged)
    return reshape(cx, v, v.type.shape[:s] + (size,) + v.type.shape[e + 1 :])


def _prod(dims) -> int:
    out = 1
    for d in dims:
        out *= d
    return out


@lowers(torch.unflatten, "unflatten", aten.unflatten)
def _unflatten(cx: LoweringContext, x, dim, sizes):
    v = cx.value(x)
    d = _dim(dim, v.type.rank)
    return reshape(cx, v, v.type.shape[:d] + tuple(sizes) + v.type.shape[d + 1 :])


@lowers(torch.permute, "permute", aten.permute)
def _permute(cx: LoweringContext, x, *dims):
    v = cx.value(x)
    dims = tuple(_dim(d, v.type.rank) for d in _sizes(dims))
    if dims == tuple(range(v.type.rank)):
        return v
    return cx.emit(ops.PermuteOp, v, dims=dims)


@lowers(
    torch.transpose,
    torch.swapaxes,
    "transpose",
    "swapaxes",
    aten.transpose,
    aten.swapaxes,
)
def _transpose(cx: LoweringContext, x, d0, d1):
    return transpose(cx, x, d0, d1)


@lowers(aten.numpy_T)
def _numpy_t(cx: LoweringContext, x):
    """``x.T``: all dims reversed."""
    return _permute(cx, x, *reversed(range(cx.value(x).type.rank)))


@lowers(torch.unsqueeze, "unsqueeze", aten.unsqueeze)
def _unsqueeze(cx: LoweringContext, x, dim):
    return unsqueeze(cx, x, dim)


@lowers(torch.squeeze, "squeeze", aten.squeeze)
def _squeeze(cx: LoweringContext, x, dim=None):
    v = cx.value(x)
    shape = v.type.shape
    if not shape:  # a 0-d tensor accepts dim 0 or -1 and stays as it is
        return v
    if dim is None:
        dims = {i for i, s in enumerate(shape) if s == 1}
    else:
        dims = {_dim(d, v.type.rank) for d in ((dim,) if isinstance(dim, int) else dim)}
        dims = {d for d in dims if shape[d] == 1}
    return reshape(cx, v, tuple(s for i, s in enumerate(shape) if i not in dims))


@lowers("expand", aten.expand)
def _expand(cx: LoweringContext, x, *sizes, **_):
    v = cx.value(x)
    sizes = _sizes(sizes)
    lead = len(sizes) - v.type.rank
    shape = tuple(v.type.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    if shape == v.type.shape:
        return v
    return cx.emit(ops.ExpandOp, v, shape=shape)


@lowers("expand_as", aten.expand_as)
def _expand_as(cx: LoweringContext, x, other):
    return _expand(cx, x, cx.value(other).type.shape)


@lowers(torch.cat, torch.concat, torch.concatenate, aten.cat, aten.concat)
def _cat(cx: LoweringContext, tensors, dim=0, **kw):
    dim = kw.get("axis", dim)
    values = [cx.value(t) for t in tensors]
    values = [
        v for v in values if not (v.type.rank == 1 and v.type.shape[0] == 0)
    ] or values
    if len(values) == 1:
        return values[0]
    _, values = cx.promote(*values)
    return cx.emit(ops.CatOp, *values, dim=_dim(dim, values[0].type.rank))


@lowers(torch.stack, aten.stack)
def _stack(cx: LoweringContext, tensors, dim=0):
    rank = cx.value(tensors[0]).type.rank + 1
    return _cat(
        cx, [unsqueeze(cx, t, _dim(dim, rank)) for t in tensors], _dim(dim, rank)
    )


@lowers(torch.split, "split", aten.split, aten.split_with_sizes)
def _split(cx: LoweringContext, x, split_size_or_sections, dim=0):
    v = cx.value(x)
    d = _dim(dim, v.type.rank)
    size = v.type.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        sections = [min(step, size - s) for s in range(0, size, step)]
    else:
        sections = list(split_size_or_sections)
    out, start = [], 0
    for n in sections:
        out.append(slice_dim(cx, v, d, start, start + n))
        start += n
    return tuple(out)


@lowers(torch.chunk, "chunk", aten.chunk)
def _chunk(cx: LoweringContext, x, chunks, dim=0):
    v = cx.value(x)
    size = v.type.shape[_dim(dim, v.type.rank)]
    return _split(cx, v, -(-size // chunks), dim)


@lowers(torch.unbind, "unbind", aten.unbind)
def _unbind(cx: LoweringContext, x, dim=0):
    v = cx.value(x)
    d = _dim(dim, v.type.rank)
    return tuple(_select(cx, v, d, i) for i in range(v.type.shape[d]))


@lowers(torch.narrow, "narrow", aten.narrow)
def _narrow(cx: LoweringContext, x, dim, start, length):
    if isinstance(start, LazyTensor | torch.Tensor):  # a compile-time 0-d tensor
        start = int((start.data if isinstance(start, LazyTensor) else start).item())
    if not isinstance(start, int):
        raise UnsupportedOpError(
            "narrow with a start computed at run time",
            node=cx.node_name,
            where=cx.where(),
            hint="pass start as a Python int",
        )
    v = cx.value(x)
    size = v.type.shape[_dim(dim, v.type.rank)]
    if start < 0 and isinstance(
        size, int
    ):  # torch counts a negative start from the end
        start += size
    return slice_dim(cx, v, dim, start, start + length)


@lowers(torch.select, "select", aten.select)
def _select(cx: LoweringContext, x, dim, index):
    v = cx.value(x)
    d = _dim(dim, v.type.rank)
    size = v.type.shape[d]
    i = index % size if isinstance(size, int) else index
    out = slice_dim(cx, v, d, i, i + 1)
    return reshape(cx, out, v.type.shape[:d] + v.type.shape[d + 1 :])


@lowers(aten.slice)
def _aten_slice(cx: LoweringContext, x, dim=0, start=None, end=None, step=1):
    v = cx.value(x)
    size = v.type.shape[_dim(dim, v.type.rank)]
    if isinstance(end, int) and isinstance(size, int) and end > size:
        end = size
    return slice_dim(cx, v, dim, start, end, step)


# ---- indexing -----------------------------------------------------------------------------
@lowers(operator.getitem)
def _getitem(cx: LoweringContext, obj, index):
    if not isinstance(obj, Value):
        item = obj[index]  # a tuple of values (split, max with dim) or a size tuple
        if item is None and isinstance(
            obj, tuple
        ):  # a result the rule does not compute
            raise UnsupportedOpError(
                f"result {index} of a multi-result op",
                node=cx.node_name,
                where=cx.where(),
                hint="Cuvil computes only some results of multi-result ops "
                "(docs/OPS.md)",
            )
        return item
    index = index if isinstance(index, tuple) else (index,)
    return _index_tensor(cx, obj, index)


def _index_tensor(cx: LoweringContext, v: Value, index: tuple) -> Value:
    n_real = sum(1 for i in index if i is not None and i is not Ellipsis)
    if Ellipsis in index:
        at = index.index(Ellipsis)
        fill = (slice(None),) * (v.type.rank - n_real)
        index = index[:at] + fill + index[at + 1 :]
    dim, out = 0, v
    for item in index:
        if item is None:
            out = unsqueeze(cx, out, dim)
            dim += 1
        elif isinstance(item, slice):
            out = slice_dim(cx, out, dim, item.start, item.stop, item.step or 1)
            dim += 1
        elif isinstance(item, int):
            out = _select(cx, out, dim, item)
        else:
            raise UnsupportedOpError(
                f"tensor indexing with {type(item).__name__}",
                node=cx.node_name,
                where=cx.where(),
                hint="only ints, slices, None and ... are supported",
            )
    return out


# ---- size queries: Python values, not IR ----------------------------------------------------
@lowers("size", aten.sym_size)
def _size(cx: LoweringContext, x, dim=None):
    shape = cx.value(x).type.shape
    return tuple(shape) if dim is None else shape[_dim(dim, len(shape))]


@lowers("dim", "ndimension")
def _ndim(cx: LoweringContext, x):
    return cx.value(x).type.rank


@lowers("numel", torch.numel, aten.numel)
def _numel(cx: LoweringContext, x):
    return cx.value(x).type.numel()


def _result_fields() -> dict[str, int]:
    """Field name -> index for the fields of torch.return_types (sort's `.values`,
    max's `.indices`, aminmax's `.max`) that sit at the same index in every type."""
    where: dict[str, set[int]] = {}
    for name in dir(torch.return_types):
        cls = getattr(torch.return_types, name)
        n = getattr(cls, "n_sequence_fields", None)  # a structseq: fields by position
        if not isinstance(cls, type) or not isinstance(n, int):
            continue
        probe = cls(tuple(range(n)))
        for field in dir(cls):
            if not field.startswith("_") and field not in ("count", "index"):
                value = getattr(probe, field, None)
                if isinstance(value, int) and not field.startswith("n_"):
                    where.setdefault(field, set()).add(value)
    return {f: next(iter(ix)) for f, ix in where.items() if len(ix) == 1}


_RESULT_FIELDS = _result_fields()


@lowers(getattr)
def _getattr(cx: LoweringContext, obj, name: str, *default: Any):
    if isinstance(obj, tuple) and name in _RESULT_FIELDS:  # torch.sort(x).values
        return obj[_RESULT_FIELDS[name]]
    if isinstance(obj, LazyTensor):  # a parameter's or constant's attribute (dynamo)
        obj = cx.value(obj)
    if not isinstance(obj, Value):
        return getattr(obj, name, *default)
    t = obj.type
    attrs = {
        "shape": lambda: tuple(t.shape),
        "ndim": lambda: t.rank,
        "dtype": lambda: t.dtype.torch,
        "device": lambda: torch.device("cpu"),
        "is_cuda": lambda: False,
        "T": lambda: _permute(cx, obj, *reversed(range(t.rank))),
        "mT": lambda: transpose(cx, obj, -2, -1),
    }
    if name not in attrs:
        raise UnsupportedOpError(
            f"tensor attribute '.{name}'", node=cx.node_name, where=cx.where()
        )
    return attrs[name]()


@lowers(
    aten._assert_tensor_metadata, aten._assert_scalar, aten.sym_constrain_range_for_size
)
def _ignore(cx: LoweringContext, *args, **kwargs):
    return None
