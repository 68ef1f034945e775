"""Lowering rules for leaf ``nn.Module`` calls (FX ``call_module`` nodes).

Each rule gets the module and its dotted path; parameters become ``cuvil.param`` ops named
``<path>.weight`` etc. Modules not listed here are traced through by the FX tracer.
"""

from __future__ import annotations

from collections.abc import Callable

import torch.nn as nn
import torch.nn.functional as F

from . import lower_math, lower_maxpool, lower_nn, lower_resample, lower_shape
from .context import LoweringContext
from .registry import lookup

__all__ = ["MODULE_LOWERINGS", "is_leaf"]

ModuleRule = Callable[..., object]
MODULE_LOWERINGS: dict[type[nn.Module], ModuleRule] = {}


def _rule(*types: type[nn.Module]):
    def register(fn: ModuleRule) -> ModuleRule:
        for t in types:
            MODULE_LOWERINGS[t] = fn
        return fn

    return register


def is_leaf(module: nn.Module) -> bool:
    return type(module) in MODULE_LOWERINGS


def _p(cx: LoweringContext, path: str, name: str, module: nn.Module):
    """A module's param/buffer as a compile-time tensor (None when absent)."""
    t = getattr(module, name, None)
    if t is None:
        return None
    return cx.lazy(f"{path}.{name}" if path else name, t)


@_rule(nn.Linear)
def _linear(cx, m: nn.Linear, path, x):
    return lower_nn.linear(cx, x, _p(cx, path, "weight", m), _p(cx, path, "bias", m))


@_rule(nn.Conv1d, nn.Conv2d)
def _conv(cx, m, path, x):
    n = 1 if isinstance(m, nn.Conv1d) else 2
    padding = m.padding
    if m.padding_mode != "zeros":  # torch pads first, then convolves unpadded
        pads = m._reversed_padding_repeated_twice
        x, padding = lower_resample.pad(cx, x, pads, m.padding_mode), 0
    return lower_nn.conv(
        cx,
        n,
        x,
        _p(cx, path, "weight", m),
        _p(cx, path, "bias", m),
        m.stride,
        padding,
        m.dilation,
        m.groups,
    )


@_rule(nn.BatchNorm1d, nn.BatchNorm2d)
def _batch_norm(cx, m, path, x):
    mean, var = _p(cx, path, "running_mean", m), _p(cx, path, "running_var", m)
    return lower_nn.batch_norm(
        cx,
        x,
        mean,
        var,
        _p(cx, path, "weight", m),
        _p(cx, path, "bias", m),
        m.training or mean is None,
        0.0,
        m.eps,
    )


@_rule(nn.LayerNorm)
def _layer_norm(cx, m: nn.LayerNorm, path, x):
    return lower_nn.layer_norm(
        cx,
        x,
        m.normalized_shape,
        _p(cx, path, "weight", m),
        _p(cx, path, "bias", m),
        m.eps,
    )


@_rule(nn.Embedding)
def _embedding(cx, m: nn.Embedding, path, x):
    if m.max_norm is not None:
        raise lower_nn._unsupported(cx, "nn.Embedding(max_norm=...)")
    return cx.emit(lower_nn.ops.EmbeddingOp, _p(cx, path, "weight", m), x)


def _functional(rule: Callable, *attrs: str):
    """A module rule that calls a functional rule with the module's attributes."""

    def module_rule(cx, m, path, x):
        return rule(cx, x, *(getattr(m, a) for a in attrs))

    return module_rule


_rule(nn.ReLU)(_functional(lookup("relu")))
_rule(nn.Sigmoid)(_functional(lookup("sigmoid")))
_rule(nn.Tanh)(_functional(lookup("tanh")))
_rule(nn.SiLU)(_functional(lookup(F.silu)))
_rule(nn.GELU)(_functional(lower_math._gelu, "approximate"))
_rule(nn.LeakyReLU)(_functional(lower_math._leaky_relu, "negative_slope"))
_rule(nn.ReLU6)(_functional(lower_math._relu6))
_rule(nn.Hardtanh)(_functional(lower_math._hardtanh, "min_val", "max_val"))
_rule(nn.Softmax)(_functional(lookup("softmax"), "dim"))
_rule(nn.LogSoftmax)(_functional(lookup("log_softmax"), "dim"))
_rule(nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.AlphaDropout, nn.Identity)(
    _functional(lower_math._identity)
)
_rule(nn.Flatten)(_functional(lower_shape._flatten, "start_dim", "end_dim"))
_rule(nn.Unflatten)(_functional(lower_shape._unflatten, "dim", "unflattened_size"))
_rule(nn.MaxPool1d)(
    _functional(
        lower_maxpool._max_pool(1),
        "kernel_size",
        "stride",
        "padding",
        "dilation",
        "ceil_mode",
        "return_indices",
    )
)
_rule(nn.MaxPool2d)(
    _functional(
        lower_maxpool._max_pool(2),
        "kernel_size",
        "stride",
        "padding",
        "dilation",
        "ceil_mode",
        "return_indices",
    )
)
_rule(nn.AvgPool1d)(
    _functional(
        lower_nn._avg_pool(1),
        "kernel_size",
        "stride",
        "padding",
        "ceil_mode",
        "count_include_pad",
    )
)
_rule(nn.AvgPool2d)(
    _functional(
        lower_nn._avg_pool(2),
        "kernel_size",
        "stride",
        "padding",
        "ceil_mode",
        "count_include_pad",
        "divisor_override",
    )
)
_rule(nn.AdaptiveAvgPool1d)(_functional(lower_nn._adaptive_avg_pool(1), "output_size"))
_rule(nn.AdaptiveAvgPool2d)(_functional(lower_nn._adaptive_avg_pool(2), "output_size"))
