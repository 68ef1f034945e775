"""Lowering rules for reductions (sum, mean, var, max/min, argmax/argmin) and softmax."""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F

from ..errors import UnsupportedOpError
from ..ir import ops
from ..ir.types import DType
from .context import LoweringContext, refuse_extra
from .lower_math import emit_bin, is_tensor, to_dtype
from .lower_shape import reshape
from .registry import aten, lowers, named

__all__ = ["norm_dims"]


def norm_dims(rank: int, dim: Any) -> tuple[int, ...]:
    """Normalize a dim argument (None, int or list; negatives allowed) to sorted dims."""
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return tuple(range(rank))
    if rank == 0:  # torch accepts dim 0 or -1 on a 0-d tensor: nothing to reduce
        return ()
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return tuple(sorted({d % rank for d in dims}))


def _reduce(name: str, int_to: DType | None = None):
    cls = ops.REDUCE_OPS[name]

    @named(f"reduce[{name}]")
    def rule(cx: LoweringContext, x, dim=None, keepdim=False, *, dtype=None, **kw):
        refuse_extra(cx, name, kw)
        v = cx.value(x)
        if name == "cuvil.mean" and dtype is not None and _half_mean(v, dtype):
            # torch's CPU mean to a 16-bit dtype sums the input cast to float32,
            # divides and rounds once (not the input rounded to 16 bits: fuzz 7055155)
            dims = norm_dims(v.type.rank, dim)
            wide = cx.cast(v, DType.f32)
            return to_dtype(
                cx, cx.emit(cls, wide, dims=dims, keepdim=bool(keepdim)), dtype
            )
        if name == "cuvil.sum" and dtype is not None and _narrowing_sum(v, dtype):
            # torch's CPU sum of a float tensor into a 16-bit dtype adds in the
            # input's type and rounds the total (fuzz 7409921: float64 values cast to
            # float16 one by one first were 9 ulps off)
            dims = norm_dims(v.type.rank, dim)
            total = cx.emit(cls, v, dims=dims, keepdim=bool(keepdim))
            return to_dtype(cx, total, dtype)
        if dtype is not None:
            v = to_dtype(cx, v, dtype)
        elif int_to is not None and not v.type.dtype.is_float:
            v = cx.cast(v, int_to)
        dims = norm_dims(v.type.rank, dim)
        if int_to is not None and v.type.dtype is DType.i1:  # dtype=torch.bool
            # torch adds (multiplies) booleans saturating: any (all) of the elements
            wide = cx.emit(cls, cx.cast(v, DType.i64), dims=dims, keepdim=bool(keepdim))
            return cx.cast(wide, DType.i1)
        return cx.emit(cls, v, dims=dims, keepdim=bool(keepdim))

    return rule


def _narrowing_sum(v, dtype: torch.dtype) -> bool:
    wide = (DType.f32, DType.f64)
    return dtype in (torch.float16, torch.bfloat16) and v.type.dtype in wide


def _half_mean(v, dtype: torch.dtype) -> bool:
    return dtype in (torch.float16, torch.bfloat16) and v.type.dtype.torch != dtype


lowers(torch.sum, "sum", aten.sum)(_reduce("cuvil.sum", int_to=DType.i64))
lowers(torch.mean, "mean", aten.mean)(_reduce("cuvil.mean"))
lowers(torch.amax, "amax", aten.amax)(_reduce("cuvil.amax"))
lowers(torch.amin, "amin", aten.amin)(_reduce("cuvil.amin"))
lowers(torch.prod, "prod", aten.prod)(_reduce("cuvil.prod", int_to=DType.i64))


@lowers(torch.var, "var", aten.var)
def _var(
    cx: LoweringContext, x, dim=None, unbiased=None, keepdim=False, *, correction=None
):
    if isinstance(dim, bool):  # torch.var(x, unbiased)
        dim, unbiased = None, dim
    if correction is None:
        correction = 0 if unbiased is False else 1
    v = cx.value(x)
    if v.type.rank == 0:  # one element along a dim of its own (torch: 0 or nan)
        v, dim = reshape(cx, v, (1,)), 0
        keepdim = False
    dims = norm_dims(v.type.rank, dim)
    n = math.prod(v.type.shape[d] for d in dims)
    if isinstance(correction, int) and isinstance(n, int) and 0 <= correction < n:
        return cx.emit(
            ops.VarOp, v, dims=dims, keepdim=bool(keepdim), correction=correction
        )
    return _var_scaled(cx, v, dims, bool(keepdim), correction, n)


def _var_scaled(cx: LoweringContext, v, dims, keepdim: bool, correction, n):
    """torch divides by max(0, n - correction) for any real correction: the biased
    variance times n / (n - correction) is that (inf or nan where torch's is)."""
    if not isinstance(n, int) or not isinstance(correction, int | float):
        raise UnsupportedOpError(
            f"var/std with correction={correction!r} over a symbolic size",
            node=cx.node_name,
            where=cx.where(),
            hint="use an integer correction smaller than the reduced size",
        )
    denom = max(0.0, n - correction)
    scale = n / denom if denom else math.inf
    biased = cx.emit(ops.VarOp, v, dims=dims, keepdim=keepdim, correction=0)
    return emit_bin(cx, "cuvil.mul", biased, scale)


@lowers(torch.std, "std", aten.std)
def _std(cx: LoweringContext, *args, **kwargs):
    var = _var(cx, *args, **kwargs)
    if isinstance(var.owner, ops.VarOp) and not var.uses:
        var.owner.attrs["sqrt"] = True  # the root in the kernel's float64, as torch
        return var
    return cx.op("cuvil.sqrt", var)


def _minmax(reduce_name: str, pairwise: str, arg_fn):
    @named(f"minmax[{reduce_name}]")
    def rule(cx: LoweringContext, x, dim=None, keepdim=False):
        if is_tensor(dim):
            return emit_bin(cx, pairwise, x, dim)
        v = cx.value(x)
        if dim is None:
            return cx.emit(
                ops.REDUCE_OPS[reduce_name], v, dims=norm_dims(v.type.rank, None)
            )
        d = norm_dims(v.type.rank, dim)
        values = cx.emit(ops.REDUCE_OPS[reduce_name], v, dims=d, keepdim=bool(keepdim))
        return values, arg_fn(cx, v, dim, keepdim)

    return rule


@lowers(torch.argmax, "argmax", aten.argmax)
def _argmax(cx: LoweringContext, x, dim=None, keepdim=False):
    v = cx.value(x)
    if dim is None or v.type.rank == 0:  # a 0-d tensor: its one element, index 0
        flat = cx.emit(ops.ReshapeOp, v, shape=(-1,))
        out = cx.emit(ops.ArgmaxOp, flat, dim=0)
        return reshape(cx, out, (1,) * v.type.rank) if keepdim else out
    return cx.emit(
        ops.ArgmaxOp, v, dim=norm_dims(v.type.rank, dim)[0], keepdim=bool(keepdim)
    )


@lowers(torch.argmin, "argmin", aten.argmin)
def _argmin(cx: LoweringContext, x, dim=None, keepdim=False):
    # argmin(x) = argmax of an order-reversing map: -x for floats; ~x for integers
    # (-x wraps for unsigned values and for the signed minimum, ~x never does)
    v = cx.value(x)
    flip = "cuvil.neg" if v.type.dtype.is_float else "cuvil.bitwise_not"
    return _argmax(cx, cx.op(flip, v), dim, keepdim)


lowers(torch.max, "max", aten.max)(_minmax("cuvil.amax", "cuvil.maximum", _argmax))
lowers(torch.min, "min", aten.min)(_minmax("cuvil.amin", "cuvil.minimum", _argmin))


def _softmax(cls):
    @named(f"softmax[{cls.name}]")
    def rule(cx: LoweringContext, x, dim=None, *args, dtype=None, **kw):
        refuse_extra(cx, cls.name, kw, "_stacklevel")
        v = cx.value(x)
        if args and isinstance(args[0], torch.dtype):  # aten.softmax.int(x, dim, dtype)
            dtype = args[0]
        if dtype is not None:
            v = to_dtype(cx, v, dtype)
        if dim is None:  # torch's deprecated implicit dim (F._get_softmax_dim)
            dim = 0 if v.type.rank in (0, 1, 3) else 1
        if v.type.dtype in (DType.f16, DType.bf16) and cls is ops.LogSoftmaxOp:
            if v.type.rank and dim % v.type.rank == v.type.rank - 1:
                return _half_log_softmax_lastdim(cx, v)
        if v.type.dtype in (DType.f16, DType.bf16):  # in float, rounded once (opmath)
            return cx.cast(rule(cx, cx.cast(v, DType.f32), dim), v.type.dtype)
        if v.type.rank == 0:  # torch treats a 0-d tensor as one element along dim 0
            return reshape(cx, cx.emit(cls, reshape(cx, v, (1,)), dim=0), ())
        return cx.emit(cls, v, dim=dim % v.type.rank)

    return rule


def _half_log_softmax_lastdim(cx: LoweringContext, v):
    """torch's CPU log_softmax of a half float over the last dim (its lastdim kernel)
    keeps the row's sum of exponentials and its log in the input's dtype: out =
    (x - max) - half(log(half(sum))), in float, rounded. Rounding once instead is
    more accurate but up to several half ulps from eager (fuzz 7021057); over other
    dims torch rounds once, as the softmax rule above."""
    half, last = v.type.dtype, v.type.rank - 1
    x = cx.cast(v, DType.f32)
    top = cx.emit(ops.REDUCE_OPS["cuvil.amax"], x, dims=(last,), keepdim=True)
    shifted = cx.op("cuvil.sub", x, top)
    total = cx.emit(
        ops.REDUCE_OPS["cuvil.sum"],
        cx.op("cuvil.exp", shifted),
        dims=(last,),
        keepdim=True,
    )
    rounded = cx.cast(cx.cast(total, half), DType.f32)
    log = cx.cast(cx.cast(cx.op("cuvil.log", rounded), half), DType.f32)
    return cx.cast(cx.op("cuvil.sub", shifted, log), half)


lowers(torch.softmax, F.softmax, "softmax", aten.softmax, aten._softmax)(
    _softmax(ops.SoftmaxOp)
)
lowers(
    torch.log_softmax, F.log_softmax, "log_softmax", aten.log_softmax, aten._log_softmax
)(_softmax(ops.LogSoftmaxOp))
