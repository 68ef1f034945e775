"""Lowering rules for tensors made from a size and a fill value (``full``, ``zeros_like``,
``x.new_ones`` ...) and for the triangle masks ``triu``/``tril``.

A filled tensor is one scalar constant broadcast by ``cuvil.expand`` (no tensor-sized
constant in the module), so its size may be symbolic (``full_like`` of a dynamic input).
"""

from __future__ import annotations

import math

import torch

from ..errors import UnsupportedOpError
from ..ir import ops
from ..ir.core import Value
from ..ir.types import DType, SymDim
from .context import LazyTensor, LoweringContext
from .registry import aten, lowers, named

__all__ = ["FACTORIES", "lowers_factory", "filled"]

# no tensor operand: evaluated at compile time like other such calls while small (a
# constant that later rules may read), lowered by their rule when large (an evaluated
# one would be a tensor-sized constant in the module)
FACTORIES = {torch.full, torch.zeros, torch.ones, aten.full, aten.zeros, aten.ones}


def lowers_factory(target, args: tuple) -> bool:
    """Whether the call `target(*args)` is a factory too large to evaluate."""
    if getattr(target, "overloadpacket", target) not in FACTORIES:
        return False
    full = getattr(target, "overloadpacket", target) in (torch.full, aten.full)
    size = (
        args[0] if full or (len(args) == 1 and not isinstance(args[0], int)) else args
    )
    size = size if isinstance(size, tuple | list | torch.Size) else (size,)
    if not all(isinstance(d, int) for d in size):
        return True  # symbolic sizes: only the rule knows them
    return math.prod(size) > ops.INLINE_CONSTANT_LIMIT


def _refuse(cx: LoweringContext, what: str, hint: str | None = None):
    return UnsupportedOpError(what, node=cx.node_name, where=cx.where(), hint=hint)


def _check_placement(cx, device, layout, what: str, kwargs=None) -> None:
    if kwargs and kwargs.get("out") is not None:
        raise _refuse(cx, f"{what}(out=...)", hint="use the returned tensor")
    if device is not None and torch.device(device).type != "cpu":
        raise _refuse(cx, f"{what}(device={device!r})", hint="Cuvil compiles for cpu")
    if layout not in (None, torch.strided):
        raise _refuse(cx, f"{what}(layout={layout})", hint="only dense tensors")


def _element(cx: LoweringContext, fill, dtype: torch.dtype | None, like, what: str):
    """torch's own 0-d result for `fill`: its dtype inference and value conversion."""
    if isinstance(fill, Value) or not isinstance(fill, bool | int | float):
        raise _refuse(
            cx,
            f"{what} with a fill value of type {type(fill).__name__}",
            hint="use a Python number",
        )
    if like is not None:
        proto = torch.empty((), dtype=like.type.dtype.torch)
        ref = torch.full_like(proto, fill, dtype=dtype)
    else:
        ref = torch.full((), fill, dtype=dtype)
    try:
        DType.from_torch(ref.dtype)
    except ValueError:
        raise _refuse(cx, f"{what}(dtype={ref.dtype})") from None
    return ref


def filled(cx: LoweringContext, shape, ref: torch.Tensor, like=None) -> Value:
    """A tensor of `shape` whose every element is the 0-d tensor `ref`.

    A symbolic size is known only at run time, from a tensor: there the result is
    ``where(true, ref, like)``, `like` being a tensor of that shape (``full_like``).
    """
    shape = tuple(d if isinstance(d, SymDim) else int(d) for d in shape)
    scalar = cx.constant(ref)
    if not any(isinstance(d, SymDim) for d in shape):
        return scalar if not shape else cx.emit(ops.ExpandOp, scalar, shape=shape)
    if like is None or like.type.shape != shape:
        raise _refuse(cx, f"a filled tensor of symbolic size {list(shape)}")
    like = cx.cast(like, scalar.type.dtype)
    true = cx.constant(torch.ones((), dtype=torch.bool))
    return cx.emit(ops.WhereOp, true, scalar, like)


def _sizes(cx: LoweringContext, size) -> tuple:
    size = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
    if not all(isinstance(d, int | SymDim) for d in size):
        raise _refuse(cx, f"a tensor of size {list(size)}", hint="sizes must be known")
    return tuple(size)


def _like(fixed):
    @named(f"like[{fixed}]")
    def rule(cx, x, *args, dtype=None, layout=None, device=None, **kw):
        fill = args[0] if fixed is None else fixed
        _check_placement(cx, device, layout, "full_like", kw)
        v = cx.value(x)
        ref = _element(cx, fill, dtype, v, "full_like")
        return filled(cx, v.type.shape, ref, like=v)

    return rule


lowers(torch.full_like, aten.full_like)(_like(None))
lowers(torch.zeros_like, aten.zeros_like)(_like(0))
lowers(torch.ones_like, aten.ones_like)(_like(1))
# empty's contents are unspecified: zeros are one correct choice
lowers(torch.empty_like, aten.empty_like)(_like(0))


def _new(fixed):
    @named(f"new[{fixed}]")
    def rule(cx, x, *args, dtype=None, layout=None, device=None, **kw):
        # x.new_full(size, fill); x.new_zeros(size) or x.new_zeros(2, 3)
        size, fill = (args[0], args[1]) if fixed is None else (args, fixed)
        _check_placement(cx, device, layout, "new_full", kw)
        v = cx.value(x)
        ref = _element(cx, fill, dtype or v.type.dtype.torch, None, "new_full")
        return filled(cx, _sizes(cx, (size,) if fixed is None else size), ref, like=v)

    return rule


lowers("new_full", aten.new_full)(_new(None))
lowers("new_zeros", aten.new_zeros)(_new(0))
lowers("new_ones", aten.new_ones)(_new(1))
lowers("new_empty", aten.new_empty)(_new(0))


@lowers(torch.full, aten.full)
def _full(cx, size, fill_value, *, dtype=None, layout=None, device=None, **kw):
    _check_placement(cx, device, layout, "full", kw)
    return filled(
        cx, _sizes(cx, (size,)), _element(cx, fill_value, dtype, None, "full")
    )


def _constant_fill(fixed):
    @named(f"factory[{fixed}]")
    def rule(cx, *size, dtype=None, layout=None, device=None, **kw):
        _check_placement(cx, device, layout, "zeros" if fixed == 0 else "ones", kw)
        ref = _element(cx, fixed, dtype or torch.get_default_dtype(), None, "zeros")
        return filled(cx, _sizes(cx, size), ref)

    return rule


lowers(torch.zeros, aten.zeros)(_constant_fill(0))
lowers(torch.ones, aten.ones)(_constant_fill(1))


# ---- triangles ----------------------------------------------------------------------------
def _triangle(upper: bool):
    @named("triu" if upper else "tril")
    def rule(cx: LoweringContext, x, diagonal=0):
        v = cx.value(x)
        if v.type.rank < 2:
            raise _refuse(cx, f"{rule.__name__} of a {v.type.rank}-d tensor")
        rows, cols = v.type.shape[-2:]
        if isinstance(rows, SymDim) or isinstance(cols, SymDim):
            raise _refuse(cx, f"{rule.__name__} of a matrix of symbolic size")
        keep = torch.ones(rows, cols, dtype=torch.bool)
        keep = keep.triu(int(diagonal)) if upper else keep.tril(int(diagonal))
        zero = cx.scalar(0, v.type.dtype)
        return cx.emit(ops.WhereOp, cx.constant(keep), v, zero)

    return rule


lowers(torch.triu, "triu", aten.triu)(_triangle(True))
lowers(torch.tril, "tril", aten.tril)(_triangle(False))


# ---- overwriting every element (after functionalization: fill, zero, copy) ---------------
@lowers("fill_", "fill", aten.fill, aten.fill_)
def _fill(cx: LoweringContext, x, value):
    v = cx.value(x)
    if isinstance(value, Value | LazyTensor | torch.Tensor):  # a 0-d tensor's value
        return _copy(cx, v, cx.value(value))
    ref = _element(cx, value, v.type.dtype.torch, None, "fill_")
    return filled(cx, v.type.shape, ref, like=v)


@lowers("zero_", aten.zero, aten.zero_)
def _zero(cx: LoweringContext, x):
    v = cx.value(x)
    ref = _element(cx, 0, v.type.dtype.torch, None, "zero_")
    return filled(cx, v.type.shape, ref, like=v)


@lowers("copy_", aten.copy, aten.copy_)
def _copy(cx: LoweringContext, x, src, non_blocking=False):
    """x.copy_(src): src cast to x's dtype and broadcast to x's shape."""
    v = cx.value(x)
    if isinstance(src, bool | int | float):  # torch wraps it as a 0-d double (int64)
        # tensor and casts that: inf into uint8 is x86's conversion (0), where a uint8
        # constant of inf is refused (fuzz 7030134: export's copy_(inf) crashed)
        wide = torch.float64 if isinstance(src, float) else None
        src = torch.tensor(src, dtype=wide).to(v.type.dtype.torch)
    s = cx.cast(cx.value(src, v.type.dtype), v.type.dtype)
    if s.type.shape == v.type.shape:
        return s
    if any(isinstance(d, SymDim) for d in v.type.shape):  # sizes known at run time
        return cx.emit(ops.WhereOp, cx.constant(torch.ones((), dtype=torch.bool)), s, v)
    return cx.emit(ops.ExpandOp, s, shape=v.type.shape)
