"""The mechanisms written from zoo15's misses (docs/TRIAGE.md, "zoo15: measured once,
unseen, then development data"), in other spellings than the libraries' (facenet-pytorch,
julius, unfoldNd, pytorch-nlp, fft-conv-pytorch), captured for real, with their root
line: the helper line that makes an op Cuvil refuses (export keeps only forward()'s
frame; the eager replay finds the rest); an integer convolution refused by name; a
model fed a wrong input, eager failing too (the example_inputs() line that builds it);
a forward set on the instance, which torch.fx does not trace; numpy on sizes under
strict export; a tensor attribute set under strict export; an fx splat of a tuple
built from a rank."""

from __future__ import annotations

import textwrap

from triage_cases import mechanism_tests

_HELPER_OP = """
import torch
from torch import nn


def spectrum(signal):
    padded = torch.nn.functional.pad(signal, (0, 2))
    freq = torch.fft.rfft(padded, dim=-1)
    return torch.view_as_real(freq)


class Model(nn.Module):
    def forward(self, x):
        return spectrum(x) * 2


def example_inputs():
    return (torch.randn(2, 6),)
"""

_INT_CONV = """
import torch
import torch.nn.functional as F
from torch import nn


def one_hot_patches(x, k):
    weight = torch.eye(k, dtype=x.dtype).reshape(k, 1, k)
    return F.conv1d(x, weight)


class Model(nn.Module):
    def forward(self, x):
        return one_hot_patches(x, 3)


def example_inputs():
    return (torch.arange(16).reshape(2, 1, 8),)
"""

_RANK_RAISE = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, images):
        spatial = images.dim() - 2
        if spatial != 2:
            raise ValueError(f"expected 2 spatial dims, got {spatial}")
        return self.conv(images)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    images = torch.randn(3, 16, 16, generator=g)
    return (images,)
"""

_SIZE_UNPACK = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, query, keys):
        batch, steps, width = query.size()
        scores = torch.bmm(self.proj(query), keys.transpose(1, 2))
        return scores.softmax(-1).reshape(batch, steps, -1)


def example_inputs():
    keys = torch.randn(2, 5, 8)
    query = torch.randn(2, 8)
    return (query, keys)
"""

_KERNEL_TOO_BIG = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 6, kernel_size=5)

    def forward(self, tokens):
        return self.conv(tokens.transpose(1, 2)).amax(-1)


def example_inputs():
    tokens = torch.randn(2, 3, 4)
    return (tokens,)
"""

_INSTANCE_FORWARD = """
import torch
from torch import nn


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(4, 4)
        self.forward = self._scaled

    def _scaled(self, x):
        return self.inner(x) * 0.5


def Model():
    return Scaled()


def example_inputs():
    return (torch.randn(2, 4),)
"""

_NUMPY_SIZES = """
import numpy as np
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        features = int(np.prod(x.shape[1:]))
        return x.reshape(-1, features) * 2


def example_inputs():
    return (torch.randn(2, 3, 4),)
"""

_TENSOR_ATTRIBUTE = """
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        z = torch.complex(x, x)
        z.real *= 2
        return torch.view_as_real(z)


def example_inputs():
    return (torch.randn(2, 3),)
"""

_RANK_SPLAT = """
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        spatial = x.ndim - 2
        ones = (1,) * spatial
        scale = torch.full((1, 1, *ones), 0.5, dtype=x.dtype)
        return x * scale


def example_inputs():
    return (torch.randn(2, 3, 4, 4),)
"""

CASES = [
    # (name, frontend, source, category, text of a root line)
    # fft-conv's rfftn inside fft_conv(), unfoldNd's conv3d inside unfoldNd(): the
    # helper's line comes first (export's node names only forward()'s call)
    ("helper_refused_op", "export", _HELPER_OP, "unsupported-op", "torch.fft.rfft("),
    # unfoldNd's one-hot convolution of an integer input
    ("integer_convolution", "export", _INT_CONV, "unsupported-op", "F.conv1d(x"),
    # unfoldNd's "Only 1,2,3-dimensional unfold is supported. Got N=0."
    ("rank_raise_eager", "export", _RANK_RAISE, "shape-mismatch", "images = torch"),
    # pytorch-nlp's Attention given a 2-d query
    ("size_unpack_eager", "export", _SIZE_UNPACK, "shape-mismatch", "query = torch"),
    # pytorch-nlp's CNNEncoder and facenet's RNet given too short an input
    ("kernel_too_big_eager", "fx", _KERNEL_TOO_BIG, "shape-mismatch", "tokens = "),
    # pytorch-nlp's WeightDrop: `self.forward = module.forward`
    (
        "instance_forward",
        "fx",
        _INSTANCE_FORWARD,
        "capture-limitation",
        "self.forward = self._scaled",
    ),
    # unfoldNd's `int(numpy.prod(shape))` traced by dynamo into an .item()
    ("numpy_sizes_strict", "export-strict", _NUMPY_SIZES, "non-torch-call", "np.prod"),
    # fft-conv's `kernel_fr.imag *= -1`
    (
        "tensor_attribute_strict",
        "export-strict",
        _TENSOR_ATTRIBUTE,
        "inplace-mutation",
        "z.real *= 2",
    ),
    # fft-conv's `zeros(1, 1, *dilation_)`, dilation_ built from `signal.ndim - 2`
    (
        "rank_splat_fx",
        "fx",
        _RANK_SPLAT,
        "capture-limitation",
        "torch.full((1, 1, *ones)",
    ),
]


TOP = {"helper_refused_op": 1}  # the root must be the first candidate


case_records, test_zoo15_mechanism_is_triaged = mechanism_tests(
    "zoo15", CASES, lambda src: textwrap.dedent(src).lstrip(), tops=TOP
)
