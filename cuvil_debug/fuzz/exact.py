"""Normalizations by their definition, for one of the judge's references.

torch's layer_norm and group_norm kernels compute a row's mean in a way that leaves a
rounding residual where the mean is exact: a row of integers whose sum is 0 gives its
zero elements 2.8e-9 (1.9e-17 in float64), a constant row or a one-element group gives
every element a residual of either sign. Cuvil's two-pass mean leaves exact zeros,
and an op after the norm that has a pole or a sign test there (``fmod(x, 0)``,
``log``, ``0 * -inf``) turns that into a NaN or an infinity where eager has a number
(fuzz 7403987, 7408438, 7401782). Under ``DefinitionalNorms`` the two ATen kernels
every spelling of the norms reaches (``native_layer_norm``, ``native_group_norm``)
compute ``(x - mean) / sqrt(var + eps)`` with the mean a sum divided by the count,
so the exact zeros stay zero.
"""

from __future__ import annotations

import math

import torch
from torch.utils._python_dispatch import TorchDispatchMode

__all__ = ["DefinitionalNorms"]

aten = torch.ops.aten


def _moments(x: torch.Tensor, dims: list[int], eps: float):
    n = math.prod(x.shape[d] for d in dims)
    mean = x.sum(dims, keepdim=True) / n
    var = ((x - mean) ** 2).sum(dims, keepdim=True) / n
    return mean, torch.rsqrt(var + eps)


def _layer_norm(x, shape, weight, bias, eps):
    dims = list(range(x.dim() - len(shape), x.dim()))
    mean, rstd = _moments(x, dims, eps)
    out = (x - mean) * rstd
    out = out * weight if weight is not None else out
    return out + bias if bias is not None else out, mean, rstd


def _group_norm(x, weight, bias, n, c, hw, groups, eps):
    rows = x.reshape(n, groups, -1)
    mean, rstd = _moments(rows, [2], eps)
    out = ((rows - mean) * rstd).reshape(n, c, hw)
    if weight is not None:
        out = out * weight.reshape(1, c, 1)
    if bias is not None:
        out = out + bias.reshape(1, c, 1)
    return out.reshape(x.shape), mean.reshape(n, groups), rstd.reshape(n, groups)


class DefinitionalNorms(TorchDispatchMode):
    """Runs layer_norm and group_norm by their definition (see the module docstring)."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is aten.native_layer_norm.default:
            return _layer_norm(*args, **kwargs)
        if func is aten.native_group_norm.default:
            return _group_norm(*args, **kwargs)
        return func(*args, **kwargs)
