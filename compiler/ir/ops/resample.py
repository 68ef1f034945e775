"""Padding, upsampling (nearest, linear) and group normalization."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..attributes import AttrSpec
from ..core import Operation, Trait, register_op
from ..types import Dim, SymDim, TensorType

__all__ = ["PadOp", "UpsampleOp", "GroupNormOp", "PAD_MODES", "UPSAMPLE_MODES"]

_PURE = frozenset({Trait.PURE})
PAD_MODES = ("constant", "reflect", "replicate", "circular")
UPSAMPLE_MODES = ("nearest", "nearest-exact", "linear")


@register_op
class PadOp(Operation):
    """``cuvil.pad(%x) {pads = [l0, h0, l1, h1, ...], mode, value}``: torch's order (the
    last dim's pair first). Negative constant pads crop; reflect mirrors without the
    edge, replicate repeats the edge, circular wraps around."""

    name = "cuvil.pad"
    OPERANDS = ("x",)
    TRAITS = _PURE
    ATTRS = {
        "pads": AttrSpec("ints"),
        "mode": AttrSpec("str", default="constant", choices=PAD_MODES),
        "value": AttrSpec("float", default=0.0),
    }

    def pairs(self) -> list[tuple[int, int, int]]:
        """(dim, low, high) for each padded dim."""
        pads, rank = self.attrs["pads"], self.operand_types[0].rank
        return [
            (rank - 1 - i, pads[2 * i], pads[2 * i + 1]) for i in range(len(pads) // 2)
        ]

    def infer_types(self) -> list[TensorType]:
        (x,) = self.operand_types
        pads, mode = self.attrs["pads"], self.attrs["mode"]
        if len(pads) % 2 or len(pads) // 2 > x.rank:
            raise self.fail(
                f"pads {list(pads)} must be pairs for at most {x.rank} dims"
            )
        shape: list[Dim] = list(x.shape)
        for d, lo, hi in self.pairs():
            n = shape[d]
            if not isinstance(n, int):
                shape[d] = SymDim()
                continue
            # replicate repeats the edge any number of times; circular wraps once
            wraps = mode == "circular" and max(lo, hi) > n
            if mode != "constant" and (min(lo, hi) < 0 or wraps):
                raise self.fail(f"{mode} pads ({lo}, {hi}) do not fit dim {d} of {x}")
            if mode == "reflect" and max(lo, hi) >= n:
                raise self.fail(f"reflect pads ({lo}, {hi}) must be < size {n}")
            if n + lo + hi < 0:
                raise self.fail(f"pads ({lo}, {hi}) crop more than dim {d} of {x}")
            shape[d] = n + lo + hi
        return [x.with_shape(tuple(shape))]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        mode, pads = self.attrs["mode"], list(self.attrs["pads"])
        if mode == "constant":  # the ATen op with an int: -2 into uint8 wraps, as
            value = self.attrs["value"]  # eager's (F.pad and a float -2.0 refuse it)
            if not x.is_floating_point() and float(value).is_integer():
                value = int(value)
            return torch.ops.aten.constant_pad_nd(x, pads, value)
        # torch's reflect/replicate/circular take (N,)C,spatial inputs: pad a view
        lead = x.dim() - len(pads) // 2
        flat = x.reshape(1, -1, *x.shape[lead:]) if lead else x[None, None]
        out = F.pad(flat, pads, mode=mode)
        return out.reshape(*x.shape[:lead], *out.shape[2:])


@register_op
class UpsampleOp(Operation):
    """``cuvil.upsample(%x) {size, mode, align_corners, scales}`` over the trailing
    len(size) dims of x[N, C, *L]: torch's source-index formulas; `scales` are the
    scale factors the caller gave (empty: in/out), as torch uses them."""

    name = "cuvil.upsample"
    OPERANDS = ("x",)
    TRAITS = _PURE
    ATTRS = {
        "size": AttrSpec("ints", min=1),
        "mode": AttrSpec("str", choices=UPSAMPLE_MODES),
        "align_corners": AttrSpec("bool", default=False),
        "scales": AttrSpec("floats", default=()),
    }

    def infer_types(self) -> list[TensorType]:
        (x,) = self.operand_types
        size, scales = tuple(self.attrs["size"]), tuple(self.attrs["scales"])
        if len(size) not in (1, 2) or x.rank != len(size) + 2:
            raise self.fail(
                f"size {list(size)} needs a rank-{len(size) + 2} input: {x}"
            )
        if scales and len(scales) != len(size):
            raise self.fail(f"scales {list(scales)} must match size {list(size)}")
        if not x.dtype.is_float and self.attrs["mode"] == "linear":
            raise self.fail(f"linear upsampling needs a float tensor, got {x}")
        return [x.with_shape(x.shape[:2] + size)]

    def reference(self, x: torch.Tensor) -> torch.Tensor:
        a = self.attrs
        size, n = list(a["size"]), len(a["size"])
        scales = [s or None for s in a["scales"]] or [None] * n
        if a["mode"] == "linear":
            name = "upsample_linear1d" if n == 1 else "upsample_bilinear2d"
            fn = getattr(torch.ops.aten, name).default
            return fn(x, size, a["align_corners"], *scales)
        name = (
            "upsample_nearest" if a["mode"] == "nearest" else "_upsample_nearest_exact"
        )
        return getattr(torch.ops.aten, f"{name}{n}d").default(x, size, *scales)


@register_op
class GroupNormOp(Operation):
    """``cuvil.group_norm(%x, %w, %b) {groups, eps}``: x[N, C, *] normalized over each
    group of C/groups channels (and all of *), then w[c] * y + b[c]."""

    name = "cuvil.group_norm"
    OPERANDS = ("x", "weight?", "bias?")
    TRAITS = _PURE
    ATTRS = {"groups": AttrSpec("int", min=1), "eps": AttrSpec("float", default=1e-5)}

    def infer_types(self) -> list[TensorType]:
        x, *affine = self.operand_types
        if not x.dtype.is_float or x.rank < 2:
            raise self.fail(f"input must be a float tensor [N, C, ...], got {x}")
        c, g = x.shape[1], self.attrs["groups"]
        if isinstance(c, int) and c % g:
            raise self.fail(f"{c} channels do not split into {g} groups")
        for t in affine:
            if t.shape != (c,) or t.dtype is not x.dtype:
                raise self.fail(f"weight/bias must be {x.dtype}[{c}], got {t}")
        return [x]

    def reference(self, x, w=None, b=None) -> torch.Tensor:
        # the ATen op: F.group_norm refuses one value per group (a training-mode
        # check), which eager's aten.group_norm computes (0 + bias)
        return torch.ops.aten.group_norm(
            x, self.attrs["groups"], w, b, self.attrs["eps"]
        )
