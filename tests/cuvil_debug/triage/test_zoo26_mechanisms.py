"""The mechanisms written from zoo26's misses (docs/TRIAGE.md, "zoo26: measured once,
unseen, then development data"), in other spellings than the libraries'
(fightingcv-attention, auto-esn), captured for real, with their root line: a branch on
a tensor's metadata passed through a helper, under fx; a parameter rebuilt from a
traced value inside forward(), under fx; blocks kept in a plain list, under strict
export; an Optional mask passed as None, under fx. Each fails with the triage of
a5296d7."""

from __future__ import annotations

from triage_cases import mechanism_tests

_META_HELPER = """
import torch
from torch import nn


def grid(n, on_gpu):
    if on_gpu:
        return torch.arange(n).float().cuda()
    return torch.arange(n).float()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 6)

    def forward(self, x):
        width = x.shape[-1]
        offsets = grid(width, x.is_cuda)
        return self.proj(x) + offsets


def example_inputs():
    return (torch.randn(3, 6),)
"""

_PARAM_WRITE = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.temperature = nn.Parameter(torch.ones(1))
        self.fc = nn.Linear(5, 5)

    def forward(self, x):
        self.temperature = nn.Parameter(self.temperature.clamp(0.1, 10.0))
        return self.fc(x) / self.temperature


def example_inputs():
    return (torch.randn(4, 5),)
"""

_LIST_BLOCKS = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.stages = []
        for _ in range(2):
            self.stages.append(nn.Linear(8, 8))
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        for stage in self.stages:
            x = torch.tanh(stage(x))
        return self.head(x)


def example_inputs():
    return (torch.randn(2, 8),)
"""

_NONE_MASK = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(4, 4)

    def forward(self, x, pad_mask=None):
        s = self.score(x)
        if pad_mask is not None:
            s = s.masked_fill(pad_mask, -1e4)
        return torch.softmax(s, -1)


def example_inputs():
    return (torch.randn(2, 3, 4), None)
"""

CASES = [
    # (name, frontend, source, category, text of a root line)
    # fightingcv's ACmix: `position(h, w, x.is_cuda)` then `if is_cuda:`
    ("meta_helper", "fx", _META_HELPER, "capture-limitation", "if on_gpu:"),
    # fightingcv's MUSE: `self.dy_paras = nn.Parameter(self.softmax(self.dy_paras))`
    ("param_write", "fx", _PARAM_WRITE, "inplace-mutation", "self.temperature = nn"),
    # auto-esn's DeepESNCell: `self.layers = [ESNCell(...)]`
    (
        "list_blocks",
        "export-strict",
        _LIST_BLOCKS,
        "capture-limitation",
        "self.stages =",
    ),
    # fightingcv's ScaledDotProductAttention fed `attention_mask=None`
    ("none_mask", "fx", _NONE_MASK, "non-tensor-argument", "if pad_mask is not None"),
]


case_records, test_zoo26_mechanism_is_triaged = mechanism_tests(
    "zoo26", CASES, lambda src: src
)
