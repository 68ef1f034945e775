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
from .inplace import eager_layout
from .lower_nn import _unsupported
from .lower_shape import reshape, transpose
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
    if dropout_p:
        raise _unsupported(cx, "scaled_dot_product_attention with dropout")
    if enable_gqa:  # each group of q's heads shares one head of k and v
        k, v = _repeat_heads(cx, q, k), _repeat_heads(cx, q, v)
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
    # is_causal without a mask is the flash kernel's too (fuzz 7057063)
    flash = _flash_form(q, k, v) and attn_mask is None and _unit_last_strides(cx)
    if is_causal:
        lq, lk = scores.type.shape[-2], scores.type.shape[-1]
        attn_mask = torch.ones(lq, lk, dtype=torch.bool).tril()
    if attn_mask is not None:
        scores = _apply_mask(cx, scores, attn_mask)
    return cx.emit(ops.MatmulOp, _safe_softmax(cx, scores, flash), v)


def _repeat_heads(cx: LoweringContext, q: Value, t: Value) -> Value:
    """`t` (k or v) with each head repeated for its group of q's heads (dim -3)."""
    if q.type.rank < 3 or t.type.rank < 3:
        return t
    hq, ht = q.type.shape[-3], t.type.shape[-3]
    if hq == ht:
        return t
    if not isinstance(hq, int) or not isinstance(ht, int) or ht == 0 or hq % ht:
        raise _unsupported(
            cx,
            f"scaled_dot_product_attention(enable_gqa=True) with {hq} query heads "
            f"and {ht} key/value heads",
            hint="the query heads must be a multiple of the key/value heads",
        )
    *lead, heads, n, d = t.type.shape
    spread = reshape(cx, t, (*lead, heads, 1, n, d))
    wide = cx.emit(ops.ExpandOp, spread, shape=(*lead, heads, hq // ht, n, d))
    return reshape(cx, wide, (*lead, hq, n, d))


def _flash_form(q: Value, k: Value, v: Value) -> bool:
    """Whether torch's CPU dispatch takes its flash kernel for this call (else the
    math path): 4-d q, k, v of the same batch and heads and head size, no mask."""
    shapes = [t.type.shape for t in (q, k, v)]
    return all(len(s) == 4 for s in shapes) and all(
        s[:2] == shapes[0][:2] and s[-1] == shapes[0][-1] for s in shapes
    )


def _unit_last_strides(cx: LoweringContext) -> bool:
    """torch's flash kernel also needs q, k and v with last-dim stride 1 in eager (a
    transposed k takes the math path: fuzz 7100949); unknown strides count as 1."""
    args = getattr(cx.fx_node, "args", ())[:3]
    layouts = [eager_layout(a) for a in args]
    return all(lay is None or not lay[0] or lay[0][-1] == 1 for lay in layouts)


def _safe_softmax(cx: LoweringContext, scores: Value, flash: bool) -> Value:
    """softmax over the last dim, with a row whose scores are all -inf (masked out
    entirely) giving zeros, not NaN, as torch's SDPA. A NaN score: torch's math path
    (aten._safe_softmax: any call with a mask, not 4-d, or broadcast) keeps its row
    alive (NaN out); its flash kernel's running max skips a NaN in the scalar tail of
    a row but not in a vector chunk (of 16 floats on AVX-512), so a row of NaN and
    -inf is zeros there below 16 keys, chunk-dependent above (docs/FUZZ.md): skipped."""
    last = scores.type.rank - 1
    probs = cx.emit(ops.SoftmaxOp, scores, dim=last)
    dtype = scores.type.dtype
    cmp = "cuvil.gt" if flash else "cuvil.ne"  # gt: NaN is not alive
    alive = cx.op(cmp, scores, cx.scalar(-math.inf, dtype))
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
