"""scaled_dot_product_attention: (q * sqrt(s)) @ (k * sqrt(s)).T, the mask, torch's
safe softmax (a row with nothing to attend to gives zeros), @ v; half floats in float."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from ..ir import ops
from ..ir.core import Value
from ..ir.types import DType
from .context import LoweringContext
from .lower_nn import _unsupported
from .lower_shape import transpose
from .registry import aten, lowers


@lowers(F.scaled_dot_product_attention, aten.scaled_dot_product_attention)
def _sdpa(
    cx: LoweringContext,
    q,
    k,
    v,
    attn_mask=None,
    dropout_p=0.0,
    is_causal=False,
    scale=None,
    enable_gqa=False,
) -> Value:
    q, k, v = cx.value(q), cx.value(k), cx.value(v)
    if dropout_p or enable_gqa:
        raise _unsupported(cx, "scaled_dot_product_attention with dropout or GQA")
    if q.type.dtype in (DType.f16, DType.bf16):  # in float, as torch's CPU kernels
        wide = [cx.cast(t, DType.f32) for t in (q, k, v)]
        if attn_mask is not None and cx.value(attn_mask).type.dtype.is_float:
            attn_mask = cx.cast(cx.value(attn_mask), DType.f32)
        out = _sdpa(cx, *wide, attn_mask, 0.0, is_causal, scale)
        return cx.cast(out, q.type.dtype)
    d = q.type.shape[-1]
    scale = scale if scale is not None else 1.0 / math.sqrt(d)
    # q and k each scaled by sqrt(scale) before the product, as torch (q @ k.T * scale
    # overflows where that does not)
    root = cx.scalar(math.sqrt(scale) if scale >= 0 else math.nan, q.type.dtype)
    q, k = cx.op("cuvil.mul", q, root), cx.op("cuvil.mul", k, root)
    scores = cx.emit(ops.MatmulOp, q, transpose(cx, k, -2, -1))
    if is_causal:
        lq, lk = scores.type.shape[-2], scores.type.shape[-1]
        attn_mask = torch.ones(lq, lk, dtype=torch.bool).tril()
    if attn_mask is not None:
        scores = _apply_mask(cx, scores, attn_mask)
    return cx.emit(ops.MatmulOp, _safe_softmax(cx, scores), v)


def _safe_softmax(cx: LoweringContext, scores: Value) -> Value:
    """softmax over the last dim, with a row whose scores are all -inf (masked out
    entirely) or NaN giving zeros, not NaN: torch's SDPA does (aten._safe_softmax; its
    CPU kernel's running max never takes a NaN)."""
    last = scores.type.rank - 1
    probs = cx.emit(ops.SoftmaxOp, scores, dim=last)
    dtype = scores.type.dtype
    alive = cx.op("cuvil.gt", scores, cx.scalar(-math.inf, dtype))  # NaN: not alive
    alive = cx.emit(
        ops.REDUCE_OPS["cuvil.amax"], cx.cast(alive, dtype), dims=(last,), keepdim=True
    )
    live_row = cx.op("cuvil.gt", alive, cx.scalar(0.0, dtype))
    return cx.emit(ops.WhereOp, live_row, probs, cx.scalar(0.0, dtype))


def _apply_mask(cx: LoweringContext, scores: Value, mask) -> Value:
    m = cx.value(mask)
    if m.type.dtype.name == "i1":
        neg = cx.scalar(float("-inf"), scores.type.dtype)
        return cx.emit(ops.WhereOp, m, scores, neg)
    return cx.op("cuvil.add", scores, cx.cast(m, scores.type.dtype))
