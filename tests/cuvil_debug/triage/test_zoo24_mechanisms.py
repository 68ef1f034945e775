"""The mechanisms written from zoo24's misses (docs/TRIAGE.md, "zoo24: measured once,
unseen, then development data"), in other spellings than the libraries'
(microsoft-aurora, pygod), captured for real, with their root line: an int the user
passed, tested under fx; len() of a tuple the user passed, on a line beside a size
read, under fx; the one example input whose dtype its line sets, fed where an index
is needed. All three fail with the triage of 55b8086."""

from __future__ import annotations

from triage_cases import mechanism_tests

_STEP_ASSERT = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.scales = nn.Parameter(torch.ones(4, 6))

    def forward(self, x, step):
        assert step >= 0, "the roll-out step counts from zero"
        return x * self.scales[min(step, 3)]


def example_inputs():
    return (torch.randn(2, 6), 2)
"""

_NAMES_LEN = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(5, 4)

    def forward(self, x, names):
        batch, channels = x.shape[:2]
        assert len(names) == channels, "one name per channel"
        return self.proj(x).reshape(batch, channels, -1).sum(-1)


def example_inputs():
    return (torch.randn(2, 3, 5), ("u", "v", "t"))
"""

_FLOAT_INDEX_ADD = """
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, values, groups):
        totals = torch.zeros(4, values.shape[1])
        return totals.index_add(0, groups, values)


def example_inputs():
    values = torch.randn(6, 3)
    groups = torch.tensor([0, 1, 1, 2, 3, 3]).float()
    return (values, groups)
"""


CASES = [
    # (name, frontend, source, category, text of a root line)
    # aurora's LoRARollout: `assert step >= 0` with `step` an int input
    ("step_assert", "fx", _STEP_ASSERT, "non-tensor-argument", "assert step >= 0"),
    # aurora's LevelPatchEmbed: `assert len(var_names) == V` with a tuple of names
    ("names_len", "fx", _NAMES_LEN, "non-tensor-argument", "assert len(names)"),
    # pygod's DOMINANT fed `edge_index.float()`
    (
        "float_index_add",
        "export",
        _FLOAT_INDEX_ADD,
        "dtype-mismatch",
        "groups = torch.tensor(",
    ),
]


case_records, test_zoo24_mechanism_is_triaged = mechanism_tests(
    "zoo24", CASES, lambda src: src
)
