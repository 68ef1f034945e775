"""The mechanisms written from zoo23's misses (docs/TRIAGE.md, "zoo23: measured once,
unseen, then development data"), in other spellings than the libraries' (pytorch-msssim,
spandrel), captured for real, with their root line: an `assert` on sizes that fails
eagerly (the input is too small); numpy on a size read a line earlier, cast with
`int()`, under fx; a branch on `x.type()` under fx; einops refusing fx's Proxy; a
fake constant export names by a submodule's attribute (`body.lifted_tensor_0`), made
by a `.data` write in that submodule's class; a boolean-mask index Cuvil refuses
inside a submodule's method, where torch's stack trace stops at the call. The first
four fail with the triage of 7b726fa, the fifth with that of 5b71015, the sixth with
that of 6ffff5c."""

from __future__ import annotations

from triage_cases import mechanism_tests

_SIZE_ASSERT = """
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def forward(self, img, ref):
        side = min(img.shape[-2:])
        assert side >= 16, "images must be at least 16 pixels a side"
        return F.avg_pool2d(img - ref, 4).mean()


def example_inputs():
    return (torch.randn(1, 3, 8, 8), torch.randn(1, 3, 8, 8))
"""

_NUMPY_PAD = """
import numpy as np
import torch.nn.functional as F
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        h, w = x.size()[-2:]
        pad_h = int(np.ceil(h / 8) * 8 - h)
        pad_w = int(np.ceil(w / 8) * 8 - w)
        return F.pad(x, (0, pad_w, 0, pad_h))


def example_inputs():
    return (torch.randn(1, 2, 10, 13),)
"""

_TYPE_STRING = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x):
        if x.type() in ("torch.HalfTensor", "torch.cuda.HalfTensor"):
            x = x.float()
        return self.conv(x)


def example_inputs():
    return (torch.randn(1, 3, 8, 8),)
"""

_EINOPS_CALL = """
import torch
from einops import rearrange
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        heads = rearrange(self.proj(x), "b n (h d) -> b h n d", h=2)
        return heads.sum(-1)


def example_inputs():
    return (torch.randn(2, 5, 8),)
"""

_REFOLD = """
import torch
import torch.nn.functional as F
from torch import nn


class Refolded(nn.Module):
    def __init__(self):
        super().__init__()
        self.wide = nn.Conv2d(3, 3, 3, padding=1)
        self.point = nn.Conv2d(3, 3, 1)
        self.fused = nn.Conv2d(3, 3, 3, padding=1)

    def refold(self):
        wide = self.wide.weight.data.clone().detach()
        point = self.point.weight.data.clone().detach()
        self.merged = wide + F.pad(point, (1, 1, 1, 1))
        self.fused.weight.data = self.merged.contiguous()

    def forward(self, x):
        self.refold()
        return self.fused(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.offset = torch.zeros(1, 3, 1, 1)
        self.body = Refolded()

    def forward(self, x):
        self.offset = self.offset.type_as(x)
        return self.body(x - self.offset)


def example_inputs():
    return (torch.randn(1, 3, 8, 8),)
"""

_CALLEE_MASK = """
import torch
from torch import nn


class Hue(nn.Module):
    def convert(self, img):
        top = img.max(1)[0]
        hue = torch.zeros_like(top)
        hue[img[:, 0] == top] = (img[:, 1] - img[:, 2])[img[:, 0] == top]
        return hue


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.hue = Hue()
        self.conv = nn.Conv2d(1, 2, 3)

    def forward(self, x):
        h = self.hue.convert(x)
        return self.conv(h.unsqueeze(1))


def example_inputs():
    return (torch.rand(1, 3, 8, 8),)
"""

CASES = [
    # (name, frontend, source, category, text of a root line)
    # pytorch-msssim's ms_ssim fed images smaller than its four downsamplings allow
    ("size_assert", "export", _SIZE_ASSERT, "shape-mismatch", "assert side >= 16"),
    # spandrel's FBCNN: `paddingBottom = int(np.ceil(h / 8) * 8 - h)`
    ("numpy_pad", "fx", _NUMPY_PAD, "dynamic-shape", "pad_h = int(np.ceil("),
    # spandrel's LaMa: `if x.type() == "torch.cuda.HalfTensor":`
    ("type_string", "fx", _TYPE_STRING, "capture-limitation", "if x.type() in"),
    # spandrel's RetinexFormer: `rearrange(t, "b n (h d) -> b h n d", h=...)`
    (
        "einops_call",
        "fx",
        _EINOPS_CALL,
        "unsupported-python-construct",
        "heads = rearrange(",
    ),
    # spandrel's SPAN: export names `conv_1.lifted_tensor_0`; Conv3XC's
    # `update_params()` writes `.data` from `.data.clone()` reads, called in forward()
    ("refold", "export", _REFOLD, "inplace-mutation", "self.fused.weight.data ="),
    # spandrel's HVI-CIDNet: torch's stack trace stops at `self.trans.HVIT(x)`, the
    # boolean-mask indexing Cuvil refuses is inside that method
    ("callee_mask", "export", _CALLEE_MASK, "dynamic-shape", "hue[img[:, 0] == top]"),
]


case_records, test_zoo23_mechanism_is_triaged = mechanism_tests(
    "zoo23", CASES, lambda src: src
)
