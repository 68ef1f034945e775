"""Neural-network ops: normalization, pooling and embedding lookup."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..attributes import AttrSpec
from ..core import Operation, Trait, register_op
from ..types import Dim, DType, SymDim, TensorType
from .layout import ANY_LAYOUT
from .linalg import conv_out_size, window_attrs

__all__ = [
    "BatchNormOp",
    "LayerNormOp",
    "PoolOp",
    "MaxPool1dOp",
    "MaxPool2dOp",
    "AvgPool1dOp",
    "AvgPool2dOp",
    "AdaptiveAvgPool1dOp",
    "AdaptiveAvgPool2dOp",
    "EmbeddingOp",
]

_PURE = frozenset({Trait.PURE})


def _float_operands(op: Operation) -> None:
    x = op.operand_types[0]
    if not x.dtype.is_float:
        raise op.fail(f"input must be a float tensor, got {x}")
    for t in op.operand_types[1:]:
        if t.dtype is not x.dtype:
            raise op.fail(f"operand {t} must have the input's element type {x.dtype}")


@register_op
class BatchNormOp(Operation):
    """``cuvil.batch_norm(%x, %mean, %var, %w, %b) {eps}``: inference-mode batch norm.

    y = (x - mean[c]) / sqrt(var[c] + eps) * w[c] + b[c], c = dim 1 of x (rank >= 2).
    """

    name = "cuvil.batch_norm"
    OPERANDS = ("x", "running_mean", "running_var", "weight?", "bias?")
    TRAITS = _PURE
    LAYOUTS = ANY_LAYOUT  # x in any layout; the statistics are 1-d
    ATTRS = {"eps": AttrSpec("float", default=1e-5)}

    def infer_types(self) -> list[TensorType]:
        x, *stats = self.operand_types
        _float_operands(self)
        if x.rank < 2:
            raise self.fail(f"input must have rank >= 2 (N, C, ...), got {x}")
        for name, t in zip(self.OPERANDS[1:], stats, strict=False):
            if t.shape != (x.shape[1],):
                raise self.fail(
                    f"{name.rstrip('?')} must have shape [{x.shape[1]}], got {t}"
                )
        return [x]

    def reference(self, x, mean, var, w=None, b=None) -> torch.Tensor:
        return F.batch_norm(x, mean, var, w, b, False, 0.0, self.attrs["eps"])


@register_op
class LayerNormOp(Operation):
    """``cuvil.layer_norm(%x, %w, %b) {normalized_shape = [256], eps}`` over trailing dims."""

    name = "cuvil.layer_norm"
    OPERANDS = ("x", "weight?", "bias?")
    TRAITS = _PURE
    ATTRS = {
        "normalized_shape": AttrSpec("ints", min=0),
        "eps": AttrSpec("float", default=1e-5),
    }

    def infer_types(self) -> list[TensorType]:
        x, *affine = self.operand_types
        _float_operands(self)
        norm = tuple(self.attrs["normalized_shape"])
        if (
            not norm
            or x.shape[len(x.shape) - len(norm) :] != norm
            or len(norm) > x.rank
        ):
            raise self.fail(
                f"normalized_shape {list(norm)} must be the trailing dims of {x}"
            )
        for t in affine:
            if t.shape != norm:
                raise self.fail(f"weight/bias must have shape {list(norm)}, got {t}")
        return [x]

    def reference(self, x, w=None, b=None) -> torch.Tensor:
        return F.layer_norm(x, self.attrs["normalized_shape"], w, b, self.attrs["eps"])


class PoolOp(Operation):
    """Sliding-window pooling over the trailing SPATIAL dims of x[N, C, *L] (or [C, *L])."""

    OPERANDS = ("x",)
    TRAITS = _PURE
    LAYOUTS = ANY_LAYOUT  # the result keeps the input's layout
    SPATIAL = 2

    def infer_types(self) -> list[TensorType]:
        (x,) = self.operand_types
        n = self.SPATIAL
        if x.rank not in (n + 1, n + 2):
            raise self.fail(f"input must have rank {n + 1} or {n + 2}, got {x}")
        return [x.with_shape(x.shape[: x.rank - n] + self._spatial_out(x))]

    def _window(self) -> tuple[tuple, tuple, tuple, tuple]:
        a = self.attrs
        return (
            a["kernel"],
            a["stride"],
            a["padding"],
            a.get("dilation", (1,) * self.SPATIAL),
        )

    def _spatial_out(self, x: TensorType) -> tuple[Dim, ...]:
        k, s, p, d = self._window()
        out: list[Dim] = []
        for i in range(self.SPATIAL):
            if p[i] * 2 > k[i]:
                raise self.fail(
                    f"padding {p[i]} must be at most half the kernel size {k[i]}"
                )
            size = x.shape[x.rank - self.SPATIAL + i]
            if not isinstance(size, int):
                out.append(SymDim())
                continue
            o = conv_out_size(size, k[i], s[i], p[i], d[i], self.attrs["ceil_mode"])
            if o < 1:
                raise self.fail(
                    f"output size {o} in spatial dim {i} is too small for {x}"
                )
            out.append(o)
        return tuple(out)


def _pool_attrs(n: int, max_pool: bool) -> dict[str, AttrSpec]:
    attrs = window_attrs(n)
    if not max_pool:
        del attrs["dilation"]
    attrs["kernel"] = AttrSpec("ints", length=n, min=1)
    attrs["ceil_mode"] = AttrSpec("bool", default=False)
    if not max_pool:
        attrs["count_include_pad"] = AttrSpec("bool", default=True)
        attrs["divisor_override"] = AttrSpec("int", default=None, min=1)
    return attrs


class MaxPoolOp(PoolOp):
    """``cuvil.max_pool2d(%x) {kernel, stride, padding, dilation, ceil_mode}``."""

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        fn = F.max_pool1d if self.SPATIAL == 1 else F.max_pool2d
        k, s, p, d = self._window()
        if not x.dtype.is_floating_point:  # max_pool1d's own kernel has no integers;
            # the one with indices (what eager ran for the graph) has (fuzz 7300634)
            return fn(x, k, s, p, d, self.attrs["ceil_mode"], True)[0]
        return fn(x, k, s, p, d, self.attrs["ceil_mode"])


class AvgPoolOp(PoolOp):
    """``cuvil.avg_pool2d(%x) {kernel, stride, padding, ceil_mode, count_include_pad}``."""

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        k, s, p, _ = self._window()
        a = self.attrs
        if self.SPATIAL == 1 and a.get("divisor_override"):  # avg_pool1d has none
            y = F.avg_pool2d(
                x.unsqueeze(-2),
                (1, *k),
                (1, *s),
                (0, *p),
                a["ceil_mode"],
                a["count_include_pad"],
                a["divisor_override"],
            )
            return y.squeeze(-2)
        if self.SPATIAL == 1:
            return F.avg_pool1d(x, k, s, p, a["ceil_mode"], a["count_include_pad"])
        return F.avg_pool2d(
            x,
            k,
            s,
            p,
            a["ceil_mode"],
            a["count_include_pad"],
            a.get("divisor_override"),
        )


@register_op
class MaxPool1dOp(MaxPoolOp):
    name, SPATIAL, ATTRS = "cuvil.max_pool1d", 1, _pool_attrs(1, True)


@register_op
class MaxPool2dOp(MaxPoolOp):
    name, SPATIAL, ATTRS = "cuvil.max_pool2d", 2, _pool_attrs(2, True)


@register_op
class AvgPool1dOp(AvgPoolOp):
    name, SPATIAL, ATTRS = "cuvil.avg_pool1d", 1, _pool_attrs(1, False)


@register_op
class AvgPool2dOp(AvgPoolOp):
    name, SPATIAL, ATTRS = "cuvil.avg_pool2d", 2, _pool_attrs(2, False)


class AdaptiveAvgPoolOp(Operation):
    """``cuvil.adaptive_avg_pool2d(%x) {output_size = [1, 1]}``."""

    OPERANDS = ("x",)
    TRAITS = _PURE
    LAYOUTS = ANY_LAYOUT  # the result keeps the input's layout
    SPATIAL = 2

    def infer_types(self) -> list[TensorType]:
        (x,) = self.operand_types
        n = self.SPATIAL
        if x.rank not in (n + 1, n + 2):
            raise self.fail(f"input must have rank {n + 1} or {n + 2}, got {x}")
        if not x.dtype.is_float:
            raise self.fail(f"input must be a float tensor, got {x}")
        return [x.with_shape(x.shape[: x.rank - n] + tuple(self.attrs["output_size"]))]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        fn = F.adaptive_avg_pool1d if self.SPATIAL == 1 else F.adaptive_avg_pool2d
        return fn(x, self.attrs["output_size"])


@register_op
class AdaptiveAvgPool1dOp(AdaptiveAvgPoolOp):
    name, SPATIAL = "cuvil.adaptive_avg_pool1d", 1
    ATTRS = {"output_size": AttrSpec("ints", length=1, min=1)}


@register_op
class AdaptiveAvgPool2dOp(AdaptiveAvgPoolOp):
    name, SPATIAL = "cuvil.adaptive_avg_pool2d", 2
    ATTRS = {"output_size": AttrSpec("ints", length=2, min=1)}


@register_op
class EmbeddingOp(Operation):
    """``cuvil.embedding(%weight, %indices)``: out[..., :] = weight[indices[...], :]."""

    name = "cuvil.embedding"
    OPERANDS = ("weight", "indices")
    TRAITS = _PURE

    def infer_types(self) -> list[TensorType]:
        w, idx = self.operand_types
        if w.rank != 2:
            raise self.fail(f"weight must be 2-d [num_embeddings, dim], got {w}")
        if idx.dtype not in (DType.i64, DType.i32):
            raise self.fail(f"indices must be i64 or i32, got {idx}")
        return [TensorType(idx.shape + (w.shape[1],), w.dtype)]

    def reference(self, w: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        return F.embedding(idx, w)
