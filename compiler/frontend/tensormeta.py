"""ShapeProp's ``tensor_meta`` of a real tensor without importing sympy.

torch's ``_extract_tensor_metadata`` asks ``torch._prims_common`` which memory format a
tensor is contiguous in, and those helpers import ``torch.fx.experimental.symbolic_shapes``
(and with it sympy: ~0.3 s of CPU, the largest import of a ``cuvil-debug diff`` or an FX
compile) on their first call, to guard symbolic sizes. A real tensor's sizes are ints:
the same rules (``is_contiguous``, ``is_channels_last_contiguous_2d`` / ``_3d`` of
``torch._prims_common``) evaluated on ints give the same answer. Anything else (a
subclass, a quantized, sparse or non-strided tensor, a symbolic size) goes to torch's
own function. ``tests/frontend/test_tensormeta.py`` compares both on many layouts.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch.fx.passes.shape_prop import TensorMetadata, _extract_tensor_metadata

__all__ = ["tensor_metadata"]

_PLAIN = (torch.Tensor, torch.nn.Parameter)
_CHANNELS_LAST = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}


def tensor_metadata(t: torch.Tensor) -> TensorMetadata:
    """What ``torch.fx.passes.shape_prop._extract_tensor_metadata(t)`` returns."""
    if type(t) not in _PLAIN or t.is_quantized or t.layout != torch.strided:
        return _extract_tensor_metadata(t)
    shape, stride = t.shape, t.stride()
    if not all(type(d) is int for d in (*shape, *stride)):
        return _extract_tensor_metadata(t)
    return TensorMetadata(
        shape,
        t.dtype,
        t.requires_grad,
        stride,
        _memory_format(shape, stride),
        False,
        {},
    )


def _memory_format(shape: Sequence[int], stride: Sequence[int]):
    if _contiguous(shape, stride):
        return torch.contiguous_format
    order = _CHANNELS_LAST.get(len(shape))
    if order is not None and _nested(shape, stride, order):
        return torch.channels_last if len(shape) == 4 else torch.channels_last_3d
    return None


def _contiguous(shape: Sequence[int], stride: Sequence[int]) -> bool:
    """``torch._prims_common.is_contiguous`` on ints (``check_contiguous_sizes_strides``:
    size-1 dims skipped; a stride equal to the product of the later sizes, or of
    their maxima with 1)."""
    numel = 1
    for d in shape:
        numel *= d
    if numel < 2:
        return True
    expected, expected_max = 1, 1
    for x, y in reversed(tuple(zip(shape, stride, strict=True))):
        if x == 1:
            continue
        if y != expected and y != expected_max:
            return False
        expected_max *= max(x, 1)
        expected *= x
    return True


def _nested(shape: Sequence[int], stride: Sequence[int], order: Sequence[int]) -> bool:
    """``is_channels_last_contiguous_2d`` / ``_3d`` on ints: dims in `order`, size-1
    dims skipped, each stride the product of the sizes before it."""
    expected = 1
    for idx in order:
        if shape[idx] == 1:
            continue
        if stride[idx] != expected:
            return False
        expected *= shape[idx]
    return True
