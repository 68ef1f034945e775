"""The mechanisms written from zoo21's misses (docs/TRIAGE.md, "zoo21: measured once,
unseen, then development data"), in other spellings than the libraries' (torchbnn,
a-unet, alias-free-torch, geffnet), captured for real, with their root line:
a module passed as the input under fx; a size unpacked from `x.shape` handed to a call
under fx; `assert isinstance(x, Tensor)` under fx; batch norm's rank message; and, from
the hand-written set's misses, the model's own op failing eagerly (not a call of a
submodule) and a non-tensor output built in a submodule's returned dict. Those two, the module input and the rank message fail with the triage of 0a3adca; the other two
were answered there already in these spellings (a-unet's and alias-free-torch's were
not: zoo21's floor holds those). (torch.export's own IndexError on torchbnn's
BayesBatchNorm2d, the fifth mechanism, did not reproduce in a small model: zoo21's
floor, test_library_set_keeps_its_floor[zoo21], holds it.)"""

from __future__ import annotations

import textwrap

from triage_cases import mechanism_tests

_MODULE_INPUT = """
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, net):
        first = next(net.parameters())
        return first.sum()


def example_inputs():
    net = nn.Linear(3, 2)
    return (net,)
"""

_SIZE_TO_CALL = """
import torch
from torch import nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("taps", torch.ones(1, 1, 3) / 3)

    def forward(self, x):
        _, channels, _ = x.shape
        return F.conv1d(x, self.taps.expand(channels, -1, -1), groups=channels)


def example_inputs():
    return (torch.randn(2, 4, 10),)
"""

_IS_TENSOR_ASSERT = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(1, 4)

    def forward(self, values):
        if not torch.is_tensor(values):
            values = torch.tensor(values)
        assert isinstance(values, torch.Tensor)
        return self.lin(values.unsqueeze(-1))


def example_inputs():
    return (torch.rand(5),)
"""

_NORM_RANK = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 4, 3, padding=1)
        self.norm = nn.BatchNorm2d(4)

    def forward(self, x):
        return self.norm(self.conv(x))


def example_inputs():
    signal = torch.randn(2, 4, 9)
    return (signal,)
"""

_OWN_OP = """
import torch
from torch import nn


def pair_scores(a, b):
    return torch.matmul(a, b) / a.shape[-1] ** 0.5


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.left = nn.Linear(6, 6)
        self.right = nn.Linear(6, 6)

    def forward(self, x, y):
        return pair_scores(self.left(x), self.right(y)).softmax(-1)


def example_inputs():
    return (torch.randn(2, 4, 6), torch.randn(2, 5, 6))
"""

_DICT_ELEMENT = """
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(4, 2)

    def forward(self, h):
        return {
            "scores": self.score(h),
            "count": h.shape[0],
        }


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.head = Head()

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


def example_inputs():
    return (torch.randn(3, 4),)
"""

CASES = [
    # (name, frontend, source, category, text of a root line)
    # torchbnn's BKLLoss called on the model itself
    ("module_input", "fx", _MODULE_INPUT, "unsupported-io-type", "net = nn.Linear("),
    # alias-free-torch's `_, C, _ = x.shape` then `self.filter.expand(C, -1, -1)`
    ("size_to_call", "fx", _SIZE_TO_CALL, "dynamic-shape", "self.taps.expand("),
    # a-unet's NumberEmbedder
    (
        "is_tensor_assert",
        "fx",
        _IS_TENSOR_ASSERT,
        "unsupported-python-construct",
        "if not torch.is_tensor(",
    ),
    # geffnet's EfficientNet fed a 3-d image
    ("norm_rank", "export", _NORM_RANK, "shape-mismatch", "signal = torch."),
    # written/'s eag_bmm_scores: the model's own matmul fails eagerly (a missing
    # transpose); the op itself, not the __init__ sizes it read, is the line to change
    ("own_op", "export", _OWN_OP, "shape-mismatch", "torch.matmul(a, b)"),
    # written/'s kw_dict_meta_out: output 1 is an int, built in the submodule's dict
    # (the candidate is the statement holding it: the submodule's `return {`)
    (
        "dict_element",
        "export",
        _DICT_ELEMENT,
        "unsupported-io-type",
        "return {",
    ),
]


case_records, test_zoo21_mechanism_is_triaged = mechanism_tests(
    "zoo21", CASES, lambda src: textwrap.dedent(src).lstrip()
)
