"""The mechanisms written from zoo18's misses (docs/TRIAGE.md, "zoo18: measured once,
unseen, then development data"), in other spellings than the libraries' (nnts,
dynamic-network-architectures, skrl, torchgan, pytorchcv), captured for real, with
their root line: a wrong-rank input a convolution refuses eagerly ("Expected 3D
(unbatched) or 4D (batched) input"); a slice bound read from a size under fx; a lazy
module captured before its first call; a torch.nn module class Cuvil does not list,
named where the model chose it; `len()` of a tensor (not of a size) beside a size
read under fx. Four of the five fail with the triage of 6eb4c1f (the slice bound was
answered there already)."""

from __future__ import annotations

import textwrap

from triage_cases import mechanism_tests

_WRONG_RANK = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(1, 4, 3, padding=1)

    def forward(self, image):
        return torch.relu(self.stem(image))


def example_inputs():
    volume = torch.randn(2, 1, 6, 6, 6)
    return (volume,)
"""

_SLICE_BOUND = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.randn(1, 32, 8))
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        steps = x.size(1)
        return self.proj(x) + self.table[:, :steps]


def example_inputs():
    return (torch.randn(2, 5, 8),)
"""

_LAZY = """
import torch
from torch import nn


def Model():
    torch.manual_seed(0)
    return nn.Sequential(nn.LazyLinear(8), nn.Tanh(), nn.Linear(8, 2)).eval()


def example_inputs():
    return (torch.randn(3, 5),)
"""

_MODULE_CHOICE = """
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, act):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.act = act()

    def forward(self, x):
        return self.act(self.lin(x))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = Block(act=nn.ReLU)
        self.second = Block(act=nn.ELU)

    def forward(self, x):
        return self.second(self.first(x))


def example_inputs():
    return (torch.randn(2, 4),)
"""

_LEN_OF_TENSOR = """
import torch
from torch import nn


def length_mask(x, lengths):
    steps = x.size(2)
    return torch.arange(steps).expand(len(lengths), steps) >= lengths.unsqueeze(1)


class Model(nn.Module):
    def forward(self, x, lengths):
        return x.masked_fill(length_mask(x, lengths).unsqueeze(1), 0.0)


def example_inputs():
    return (torch.randn(2, 3, 6), torch.tensor([4, 6]))
"""

CASES = [
    # (name, frontend, source, category, text of a root line)
    # dynamic-network-architectures' 2-d U-Net fed a 5-d volume
    ("wrong_rank_input", "export", _WRONG_RANK, "shape-mismatch", "volume = torch."),
    # nnts' PositionalEmbedding: `self.pe[:, : x.size(1)]`
    (
        "slice_bound_of_size",
        "fx",
        _SLICE_BOUND,
        "dynamic-shape",
        "self.table[:, :steps]",
    ),
    # skrl's instantiators: nn.LazyLinear layers never run before capture
    ("lazy_module", "export", _LAZY, "capture-limitation", "return nn.Sequential("),
    # pytorchcv's `dw_activation=(lambda: nn.ELU(inplace=True))`
    ("module_choice", "fx", _MODULE_CHOICE, "unsupported-op", "Block(act=nn.ELU)"),
    # pytorchcv's QuartzNet: `expand(len(x_len), max_len)` next to `x.size(2)`
    ("len_of_tensor", "fx", _LEN_OF_TENSOR, "proxy-iteration", "expand(len(lengths)"),
]


case_records, test_zoo18_mechanism_is_triaged = mechanism_tests(
    "zoo18", CASES, lambda src: textwrap.dedent(src).lstrip()
)
