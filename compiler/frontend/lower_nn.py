"""Lowering rules for matmul/linear, convolution, normalization, pooling and embedding
(scaled-dot-product attention: lower_attention.py)."""

from __future__ import annotations

import math
import operator

import torch
import torch.nn.functional as F

from ..errors import UnsupportedOpError
from ..ir import ops
from ..ir.core import Value
from ..ir.types import DType
from .context import LoweringContext, cuvil_dtype
from .lower_shape import reshape, transpose, unsqueeze
from .registry import aten, lowers, named

__all__ = ["linear", "conv", "batch_norm", "layer_norm"]


def _tup(x, n: int) -> tuple[int, ...]:
    if isinstance(x, int):
        return (x,) * n
    x = tuple(x)
    return x * n if len(x) == 1 else x


def _unsupported(cx: LoweringContext, what: str, hint: str | None = None):
    return UnsupportedOpError(what, node=cx.node_name, where=cx.where(), hint=hint)


# ---- matmul -------------------------------------------------------------------------------
def _contract(cx: LoweringContext, a, b) -> Value:
    """a @ b over the last two dims (batch dims broadcast). Integer tensors, which
    cuvil.matmul does not take, multiply exactly as torch's: a sum of products in
    their own type, (..., n, k, 1) * (..., 1, k, m) summed over k."""
    va, vb = cx.value(a), cx.value(b)
    half = va.type.dtype in (DType.f16, DType.bf16) and va.type.dtype is vb.type.dtype
    if half:  # accumulated in float, rounded once, as torch's CPU kernels
        wide = cx.emit(ops.MatmulOp, cx.cast(va, DType.f32), cx.cast(vb, DType.f32))
        return cx.cast(wide, va.type.dtype)
    if va.type.dtype.is_float and vb.type.dtype.is_float:
        return cx.emit(ops.MatmulOp, va, vb)
    prod = cx.op("cuvil.mul", unsqueeze(cx, va, -1), unsqueeze(cx, vb, -3))
    return cx.emit(ops.REDUCE_OPS["cuvil.sum"], prod, dims=(prod.type.rank - 2,))


@lowers(torch.matmul, "matmul", aten.matmul, operator.matmul)
def matmul(cx: LoweringContext, a, b) -> Value:
    va, vb = cx.value(a), cx.value(b)
    if va.type.rank == 1 and vb.type.rank == 1:
        return reshape(
            cx, _contract(cx, unsqueeze(cx, va, 0), unsqueeze(cx, vb, 1)), ()
        )
    if va.type.rank == 1:
        out = _contract(cx, unsqueeze(cx, va, 0), vb)
        return reshape(cx, out, out.type.shape[:-2] + out.type.shape[-1:])
    if vb.type.rank == 1:
        out = _contract(cx, va, unsqueeze(cx, vb, 1))
        return reshape(cx, out, out.type.shape[:-1])
    return _contract(cx, va, vb)


@lowers(torch.mm, torch.bmm, "mm", "bmm", aten.mm, aten.bmm)
def _mm(cx: LoweringContext, a, b) -> Value:
    return _contract(cx, a, b)


@lowers(torch.addmm, "addmm", aten.addmm)
def _addmm(cx: LoweringContext, bias, a, b, *, beta=1, alpha=1) -> Value:
    """beta * bias + alpha * (a @ b) as torch's CPU addmm: beta 0 ignores the bias
    (its NaN and inf too, as documented); alpha 0 ignores the product of float32 and
    float64 matrices (BLAS gemm does not read them: fuzz 7054551) but not of 16-bit
    ones, whose kernel multiplies it (an inf there gives NaN in eager)."""
    bias_v = cx.value(bias)
    dtype = bias_v.type.dtype
    if alpha == 0 and dtype in (DType.f32, DType.f64):
        shape = (cx.value(a).type.shape[0], cx.value(b).type.shape[-1])
        if beta == 0:
            return cx.emit(ops.ExpandOp, _ones(cx, 0.0, dtype), shape=shape)
        scaled = _scaled(cx, bias_v, beta)
        lead = (1,) * (2 - scaled.type.rank)
        return _broadcast(cx, reshape(cx, scaled, lead + scaled.type.shape), shape)
    out = _scaled(cx, _contract(cx, a, b), alpha)
    return out if beta == 0 else cx.op("cuvil.add", out, _scaled(cx, bias_v, beta))


def _scaled(cx: LoweringContext, v: Value, factor) -> Value:
    if factor == 1:
        return v
    return cx.op("cuvil.mul", v, cx.scalar(float(factor), v.type.dtype))


def _ones(cx: LoweringContext, value: float, dtype: DType) -> Value:
    return reshape(cx, cx.scalar(value, dtype), (1, 1))


def _broadcast(cx: LoweringContext, v: Value, shape: tuple) -> Value:
    return v if v.type.shape == shape else cx.emit(ops.ExpandOp, v, shape=shape)


@lowers(F.linear, aten.linear)
def linear(cx: LoweringContext, x, weight, bias=None) -> Value:
    args = [x, weight] + ([bias] if bias is not None else [])
    return cx.emit(ops.LinearOp, *args)


@lowers(aten.t, torch.t, "t")
def _t(cx: LoweringContext, x) -> Value:
    v = cx.value(x)
    return v if v.type.rank < 2 else transpose(cx, v, 0, 1)


@lowers(aten.mT)
def _mt(cx: LoweringContext, x) -> Value:
    return transpose(cx, x, -2, -1)


# ---- convolution --------------------------------------------------------------------------
def conv(
    cx: LoweringContext,
    n: int,
    x,
    weight,
    bias=None,
    stride=1,
    padding=0,
    dilation=1,
    groups=1,
) -> Value:
    w, v = cx.value(weight), cx.value(x)
    if not (v.type.dtype.is_float and w.type.dtype.is_float):
        raise _unsupported(
            cx,
            f"{n}-d convolution of {v.type.dtype} by {w.type.dtype} tensors",
            hint="Cuvil's convolutions take float tensors: convert with .float() "
            "before the convolution (and round the result back if needed)",
        )
    if v.type.rank == n + 1:  # an unbatched input: a batch of one
        out = conv(
            cx, n, unsqueeze(cx, v, 0), w, bias, stride, padding, dilation, groups
        )
        return reshape(cx, out, out.type.shape[1:])
    stride, dilation = _tup(stride, n), _tup(dilation, n)
    if isinstance(padding, str):
        padding = _string_padding(cx, padding, w.type.shape[2:], dilation)
    cls = ops.Conv1dOp if n == 1 else ops.Conv2dOp
    args = [x, w] + ([bias] if bias is not None else [])
    return cx.emit(
        cls,
        *args,
        stride=stride,
        padding=_tup(padding, n),
        dilation=dilation,
        groups=int(groups),
    )


def _string_padding(
    cx: LoweringContext, padding: str, kernel, dilation
) -> tuple[int, ...]:
    if padding == "valid":
        return (0,) * len(kernel)
    total = [d * (k - 1) for k, d in zip(kernel, dilation)]
    if padding != "same" or any(t % 2 for t in total):
        raise _unsupported(
            cx,
            f"conv padding={padding!r} with kernel {list(kernel)}",
            hint="asymmetric 'same' padding is not supported; pad explicitly",
        )
    return tuple(t // 2 for t in total)


@lowers(F.conv1d, torch.conv1d, aten.conv1d)
def _conv1d(cx: LoweringContext, *args, **kwargs) -> Value:
    return conv(cx, 1, *args, **kwargs)


@lowers(F.conv2d, torch.conv2d, aten.conv2d)
def _conv2d(cx: LoweringContext, *args, **kwargs) -> Value:
    return conv(cx, 2, *args, **kwargs)


@lowers(aten.convolution)
def _convolution(
    cx: LoweringContext,
    x,
    w,
    bias,
    stride,
    padding,
    dilation,
    transposed,
    output_padding,
    groups,
) -> Value:
    if transposed:
        raise _unsupported(
            cx, "transposed convolution (aten.convolution transposed=True)"
        )
    n = cx.value(w).type.rank - 2
    if n not in (1, 2):
        raise _unsupported(cx, f"{n}-d convolution")
    return conv(cx, n, x, w, bias, stride, padding, dilation, groups)


# ---- normalization ------------------------------------------------------------------------
@lowers(F.batch_norm)
def batch_norm(
    cx: LoweringContext,
    x,
    running_mean,
    running_var,
    weight=None,
    bias=None,
    training=False,
    momentum=0.1,
    eps=1e-5,
) -> Value:
    if training or running_mean is None:
        raise _unsupported(
            cx,
            "batch_norm in training mode (batch statistics)",
            hint="call model.eval() before compiling",
        )
    v = cx.value(x)
    if v.type.rank < 2:  # torch accepts an empty 0-d or 1-d input and returns it
        if v.type.numel() == 0:
            return v
        raise _unsupported(cx, f"batch_norm of a rank-{v.type.rank} input")
    c = v.type.shape[1]
    v, params, back = in_float(cx, v, running_mean, running_var, weight, bias)
    running_mean, running_var, weight, bias = params
    if weight is None and bias is not None:
        weight = torch.ones(c, dtype=v.type.dtype.torch)
    args = [v, running_mean, running_var] + [a for a in (weight, bias) if a is not None]
    return back(cx.emit(ops.BatchNormOp, *args, eps=float(eps)))


def in_float(cx: LoweringContext, v: Value, *params):
    """(x, params, back): a half-float input (with half or float32 parameters) is
    normalized in float32 and cast back once, as torch's CPU kernels do (opmath); other
    inputs as they are."""
    if v.type.dtype not in (DType.f16, DType.bf16):
        return v, list(params), lambda out: out
    wide = [None if p is None else cx.cast(cx.value(p), DType.f32) for p in params]
    return cx.cast(v, DType.f32), wide, lambda out: cx.cast(out, v.type.dtype)


@lowers(aten.batch_norm)
def _aten_batch_norm(
    cx, x, weight, bias, mean, var, training, momentum, eps, *_
) -> Value:
    return batch_norm(cx, x, mean, var, weight, bias, training, momentum, eps)


@lowers(aten._native_batch_norm_legit_no_training)
def _bn_no_training(cx, x, weight, bias, mean, var, momentum, eps):
    return batch_norm(cx, x, mean, var, weight, bias, False, momentum, eps), None, None


@lowers(F.layer_norm, aten.layer_norm)
def layer_norm(
    cx: LoweringContext,
    x,
    normalized_shape,
    weight=None,
    bias=None,
    eps=1e-5,
    *_,
    cudnn_enable=True,  # aten.layer_norm's backend flag: no effect on the CPU result
) -> Value:
    shape = tuple(normalized_shape)
    v, (weight, bias), back = in_float(cx, cx.value(x), weight, bias)
    if weight is None and bias is not None:
        weight = torch.ones(shape, dtype=v.type.dtype.torch)
    args = [v] + [a for a in (weight, bias) if a is not None]
    out = cx.emit(ops.LayerNormOp, *args, normalized_shape=shape, eps=float(eps))
    return back(out)


@lowers(aten.native_layer_norm)
def _native_layer_norm(cx, x, shape, weight, bias, eps):
    """(out, mean, rstd); mean and rstd (over the normalized dims, kept as size 1, in
    the input's dtype, float32 with float32 parameters) only where the graph reads
    them."""
    out = layer_norm(cx, x, shape, weight, bias, eps)
    if not _reads_result(cx, 1) and not _reads_result(cx, 2):
        return out, None, None
    v, _, _ = in_float(cx, cx.value(x))
    params = [cx.value(p).type.dtype for p in (weight, bias) if p is not None]
    stat_dtype = DType.f32 if DType.f32 in params else cx.value(x).type.dtype
    val = getattr(cx.fx_node, "meta", {}).get("val")
    if isinstance(val, tuple | list) and len(val) == 3:  # export's own types differ
        stat_dtype = cuvil_dtype(val[1].dtype)  # from eager's for mixed precision
    dims = tuple(range(v.type.rank - len(shape), v.type.rank))
    mean = _welford_mean(cx, v, dims)
    var = cx.emit(ops.VarOp, v, dims=dims, keepdim=True, correction=0)
    rstd = cx.op(
        "cuvil.rsqrt", cx.op("cuvil.add", var, cx.scalar(float(eps), var.type.dtype))
    )
    return out, cx.cast(mean, stat_dtype), cx.cast(rstd, stat_dtype)


def _welford_mean(cx: LoweringContext, v: Value, dims: tuple) -> Value:
    """The rows' mean as torch's running (Welford) mean gives it: NaN where a row holds
    an infinity (inf - inf on the way), not the sum's +-inf."""
    mean = cx.emit(ops.REDUCE_OPS["cuvil.mean"], v, dims=dims, keepdim=True)
    big = cx.emit(
        ops.REDUCE_OPS["cuvil.amax"], cx.op("cuvil.abs", v), dims=dims, keepdim=True
    )
    inf = cx.op("cuvil.eq", big, cx.scalar(math.inf, v.type.dtype))
    return cx.op("cuvil.where", inf, cx.scalar(math.nan, v.type.dtype), mean)


def _reads_result(cx: LoweringContext, i: int) -> bool:
    """Whether the node being lowered has its result `i` read: ``r[i]`` read further
    (export keeps unread getitems), or the whole tuple taken (returned as it is)."""
    users = getattr(cx.fx_node, "users", {})
    return any(
        u.target is not operator.getitem or (u.args[1] == i and u.users) for u in users
    )


# ---- pooling ------------------------------------------------------------------------------
def _avg_pool(n: int):
    cls = ops.AvgPool1dOp if n == 1 else ops.AvgPool2dOp

    @named(f"avg_pool[{cls.name}]")
    def rule(
        cx,
        x,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        count_include_pad=True,
        divisor_override=None,
    ):
        if divisor_override is not None and divisor_override <= 0:
            raise _unsupported(cx, f"avg_pool divisor_override={divisor_override}")
        k = _tup(kernel_size, n)
        s = _tup(stride, n) if stride else k
        return cx.emit(
            cls,
            x,
            kernel=k,
            stride=s,
            padding=_tup(padding, n),
            ceil_mode=bool(ceil_mode),
            count_include_pad=bool(count_include_pad),
            divisor_override=divisor_override,
        )

    return rule


def _adaptive_avg_pool(n: int):
    cls = ops.AdaptiveAvgPool1dOp if n == 1 else ops.AdaptiveAvgPool2dOp

    @named(f"adaptive_avg_pool[{cls.name}]")
    def rule(cx, x, output_size):
        v = cx.value(x)
        if v.type.rank not in (n + 1, n + 2):  # torch takes any leading dims here
            raise _unsupported(
                cx, f"adaptive_avg_pool{n}d of a rank-{v.type.rank} input"
            )
        size = (
            _tup(output_size, n)
            if not isinstance(output_size, int)
            else (output_size,) * n
        )
        spatial = v.type.shape[v.type.rank - n :]
        size = tuple(s if o is None else o for o, s in zip(size, spatial))
        return cx.emit(cls, v, output_size=size)

    return rule


lowers(F.avg_pool1d, torch.avg_pool1d, aten.avg_pool1d)(_avg_pool(1))
lowers(F.avg_pool2d, aten.avg_pool2d)(_avg_pool(2))
lowers(F.adaptive_avg_pool1d, torch.adaptive_avg_pool1d, aten.adaptive_avg_pool1d)(
    _adaptive_avg_pool(1)
)
lowers(F.adaptive_avg_pool2d, aten.adaptive_avg_pool2d, aten._adaptive_avg_pool2d)(
    _adaptive_avg_pool(2)
)


# ---- embedding and attention --------------------------------------------------------------
@lowers(F.embedding)
def _embedding(
    cx: LoweringContext, indices, weight, padding_idx=None, max_norm=None, *_, **__
):
    if max_norm is not None:
        raise _unsupported(
            cx, "F.embedding with max_norm (it renormalizes weights in place)"
        )
    return cx.emit(ops.EmbeddingOp, weight, indices)


@lowers(aten.embedding)
def _aten_embedding(cx: LoweringContext, weight, indices, *_, **__):
    return cx.emit(ops.EmbeddingOp, weight, indices)
