"""Contractions: matmul (batched, broadcasting), linear, and N-d convolution."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..attributes import AttrSpec
from ..core import Operation, Trait, register_op
from ..types import Dim, SymDim, TensorType, broadcast_shapes

__all__ = [
    "MatmulOp",
    "LinearOp",
    "ConvOp",
    "Conv1dOp",
    "Conv2dOp",
    "conv_out_size",
    "window_attrs",
]

_CONTRACTION = frozenset({Trait.PURE, Trait.CONTRACTION})


def _same_dtype(op: Operation, types: list[TensorType]) -> None:
    if len({t.dtype for t in types}) > 1:
        listed = ", ".join(str(t) for t in types)
        raise op.fail(f"operand element types differ: {listed}")
    if not types[0].dtype.is_float:
        raise op.fail(f"operands must be float tensors, got {types[0]}")


def _dims_match(a: Dim, b: Dim) -> bool:
    return a == b or isinstance(a, SymDim) or isinstance(b, SymDim)


@register_op
class MatmulOp(Operation):
    """``cuvil.matmul(%a, %b)``: a[..., M, K] @ b[..., K, N], batch dims broadcast."""

    name = "cuvil.matmul"
    OPERANDS = ("a", "b")
    TRAITS = _CONTRACTION

    def infer_types(self) -> list[TensorType]:
        a, b = self.operand_types
        _same_dtype(self, [a, b])
        if a.rank < 2 or b.rank < 2:
            raise self.fail(f"operands must have rank >= 2, got {a} and {b}")
        if not _dims_match(a.shape[-1], b.shape[-2]):
            raise self.fail(
                f"contraction dims differ: {a} @ {b} (K {a.shape[-1]} vs {b.shape[-2]})"
            )
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
        if batch is None:
            raise self.fail(f"batch dims do not broadcast: {a} @ {b}")
        return [TensorType(batch + (a.shape[-2], b.shape[-1]), a.dtype)]

    def reference(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)


@register_op
class LinearOp(Operation):
    """``cuvil.linear(%x, %w, %b)``: x[..., K] @ w[N, K]^T + b[N] (bias optional)."""

    name = "cuvil.linear"
    OPERANDS = ("x", "weight", "bias?")
    TRAITS = _CONTRACTION

    def infer_types(self) -> list[TensorType]:
        x, w, *rest = self.operand_types
        _same_dtype(self, [x, w, *rest])
        if x.rank < 1 or w.rank != 2:
            raise self.fail(f"needs x of rank >= 1 and a 2-d weight, got {x} and {w}")
        if not _dims_match(x.shape[-1], w.shape[1]):
            raise self.fail(
                f"in-features differ: x {x} has {x.shape[-1]}, weight {w} has {w.shape[1]}"
            )
        if rest and rest[0].shape != (w.shape[0],):
            raise self.fail(f"bias must be tensor<{w.shape[0]}x...>, got {rest[0]}")
        return [TensorType(x.shape[:-1] + (w.shape[0],), x.dtype)]

    def reference(self, x, w, b=None) -> torch.Tensor:
        return F.linear(x, w, b)


def window_attrs(n: int) -> dict[str, AttrSpec]:
    """stride/padding/dilation attributes of an n-d sliding window (conv, pool)."""
    return {
        "stride": AttrSpec("ints", default=(1,) * n, length=n, min=1),
        "padding": AttrSpec("ints", default=(0,) * n, length=n, min=0),
        "dilation": AttrSpec("ints", default=(1,) * n, length=n, min=1),
    }


def conv_out_size(size: int, k: int, s: int, p: int, d: int, ceil: bool = False) -> int:
    """Output length of a conv/pool window, as torch computes it."""
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil else span // s) + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


class ConvOp(Operation):
    """``cuvil.conv2d(%x, %w, %b) {stride, padding, dilation, groups}``.

    x[N, C, *L], w[O, C/groups, *K], b[O] -> [N, O, *L'] with
    L' = (L + 2p - d(K-1) - 1) / s + 1 (floor), as ``torch.nn.functional.conv2d``.
    """

    OPERANDS = ("input", "weight", "bias?")
    TRAITS = _CONTRACTION
    SPATIAL = 2

    def infer_types(self) -> list[TensorType]:
        x, w, *rest = self.operand_types
        _same_dtype(self, [x, w, *rest])
        n, g = self.SPATIAL, self.attrs["groups"]
        if x.rank != n + 2 or w.rank != n + 2:
            raise self.fail(f"needs rank-{n + 2} input and weight, got {x} and {w}")
        if not w.is_static:
            raise self.fail(f"weight must have a static shape, got {w}")
        out_ch, in_ch = w.shape[0], x.shape[1]
        if isinstance(in_ch, int) and in_ch != w.shape[1] * g:
            raise self.fail(
                f"input channels {in_ch} != weight in-channels {w.shape[1]} x groups {g}"
            )
        if out_ch % g:
            raise self.fail(f"out channels {out_ch} are not divisible by groups {g}")
        if rest and rest[0].shape != (out_ch,):
            raise self.fail(f"bias must have shape [{out_ch}], got {rest[0]}")
        shape = (x.shape[0], out_ch) + self._spatial_out(x, w)
        return [TensorType(shape, x.dtype, x.layout)]  # the result keeps x's layout

    def verify_(self) -> None:
        x, *rest = self.operand_types
        for name, t in zip(("weight", "bias"), rest, strict=False):
            if t.layout != "contiguous":
                raise self.fail(f"{name} must be contiguous, got {t}")
        g = self.attrs["groups"]
        depthwise = g == x.shape[1] == self.results[0].type.shape[1]
        if x.layout != "contiguous" and g != 1 and not depthwise:
            raise self.fail(
                f"a grouped convolution (groups = {g}) that is not depthwise takes a "
                f"contiguous input only, got {x} (insert cuvil.relayout before it)"
            )

    def _spatial_out(self, x: TensorType, w: TensorType) -> tuple[Dim, ...]:
        s, p, d = (self.attrs[k] for k in ("stride", "padding", "dilation"))
        out: list[Dim] = []
        for i in range(self.SPATIAL):
            size = x.shape[2 + i]
            if not isinstance(size, int):
                out.append(SymDim())
                continue
            o = conv_out_size(size, w.shape[2 + i], s[i], p[i], d[i])
            if o < 1:
                raise self.fail(
                    f"output size {o} in spatial dim {i} is too small for {x}, {w}"
                )
            out.append(o)
        return tuple(out)

    def reference(self, x, w, b=None) -> torch.Tensor:
        fn = F.conv1d if self.SPATIAL == 1 else F.conv2d
        a = self.attrs
        return fn(x, w, b, a["stride"], a["padding"], a["dilation"], a["groups"])


@register_op
class Conv1dOp(ConvOp):
    name = "cuvil.conv1d"
    SPATIAL = 1
    ATTRS = {**window_attrs(1), "groups": AttrSpec("int", default=1, min=1)}


@register_op
class Conv2dOp(ConvOp):
    name = "cuvil.conv2d"
    SPATIAL = 2
    LAYOUTS = frozenset({"contiguous", "nhwc"})  # nhwc: channels-last GEMM (gemm_ops)
    ATTRS = {**window_attrs(2), "groups": AttrSpec("int", default=1, min=1)}
