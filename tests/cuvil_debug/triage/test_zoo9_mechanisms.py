"""The mechanisms written from zoo9's misses (docs/TRIAGE.md, "zoo9 as development
data"), in other spellings than the libraries' (ncps, nflows, pytorch-metric-learning,
deepctr-torch), captured for real, with their root line: a value computed from the
rank (a flag, a `range()` bound) is metadata under fx; an in-place ATen op Cuvil
refuses is the in-place write; a numpy value handed to a traced op is numpy work; a
forward() the model inherits from a base class knows which of its Optional inputs
were fed; torch's DynamicOutputShapeException inside a no_grad region outranks a
module-state write found anywhere in the model."""

from __future__ import annotations

import textwrap

from triage_cases import mechanism_tests

CASES = [
    # (name, frontend, source, category, text of a root line)
    # a flag computed from the rank, branched on later (ncps' `is_batched = input.dim() == 3`)
    (
        "rank_flag",
        "fx",
        """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, h):
        single = h.ndim == 1
        if single:
            h = h[None]
        return self.fc(h)


def example_inputs():
    return (torch.randn(3, 4),)
""",
        "capture-limitation",
        "single = h.ndim == 1",
    ),
    # the rank used as a number in a helper (nflows' `range(n, x.ndimension())`)
    (
        "rank_range",
        "fx",
        """
import torch
from torch import nn


def mean_rest(t):
    return t.mean(dim=tuple(range(1, t.dim())))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, img):
        return mean_rest(self.conv(img))


def example_inputs():
    return (torch.randn(2, 3, 8, 8),)
""",
        "capture-limitation",
        "return t.mean(dim=tuple(range(1, t.dim())))",
    ),
    # an in-place ATen op the capture recorded and Cuvil refuses (pml's `fill_diagonal_`)
    (
        "inplace_refused",
        "export-strict",
        """
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, a, b):
        sim = a @ b.t()
        sim.fill_diagonal_(-1.0)
        return sim.softmax(-1)


def example_inputs():
    return (torch.randn(5, 4), torch.randn(5, 4))
""",
        "inplace-mutation",
        "sim.fill_diagonal_(-1.0)",
    ),
    # a numpy array of configuration used as slice bounds (deepctr's `lookup_idx`)
    (
        "numpy_index",
        "fx",
        """
import numpy as np
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.spans = {"user": (0, 2), "item": (2, 5)}
        self.emb = nn.Embedding(10, 3)

    def forward(self, cols):
        span = np.asarray(self.spans["item"])
        ids = cols[:, span[0] : span[1]].long()
        return self.emb(ids).sum(1)


def example_inputs():
    return (torch.randint(0, 10, (4, 5)).float(),)
""",
        "non-torch-call",
        'span = np.asarray(self.spans["item"])',
    ),
    # a size check on a fed Optional input of a forward() the model inherits (pml's base loss)
    (
        "inherited_forward",
        "fx",
        """
import torch
from torch import nn


def same_batch(x, y):
    if y is not None and x.size(0) != y.size(0):
        raise ValueError("batch sizes differ")


class Scorer(nn.Module):
    def forward(self, feats, targets=None):
        same_batch(feats, targets)
        return self.score(feats, targets)


class Model(Scorer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def score(self, feats, targets):
        return nn.functional.cross_entropy(self.fc(feats), targets)


def example_inputs():
    return (torch.randn(6, 4), torch.tensor([0, 1, 2, 0, 1, 2]))
""",
        "dynamic-shape",
        "if y is not None and x.size(0) != y.size(0):",
    ),
    # a nonzero inside torch.no_grad() in a helper, module state written beside it (pml's miners)
    (
        "no_grad_nonzero",
        "export-strict",
        """
import torch
from torch import nn


def pick_pairs(scores):
    with torch.no_grad():
        hits = torch.nonzero(scores > 0.5)
    return hits


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.last_pairs = 0

    def forward(self, x):
        s = torch.sigmoid(self.fc(x))
        pairs = pick_pairs(s)
        self.last_pairs = pairs.shape[0]
        return s[pairs[:, 0], pairs[:, 1]].sum()


def example_inputs():
    return (torch.randn(6, 4),)
""",
        "dynamic-shape",
        "hits = torch.nonzero(scores > 0.5)",
    ),
]


case_records, test_zoo9_mechanism_is_triaged = mechanism_tests(
    "zoo9", CASES, lambda src: textwrap.dedent(src).lstrip()
)


def test_an_aten_in_place_op_is_marked_in_place():
    from cuvil_debug.triage.evidence import _op_signals

    def op(target):
        return _op_signals([{"target": target}])

    assert "op:inplace" in op("aten.fill_diagonal_.default")
    assert "op:inplace" in op("torch.ops.aten.add_.Tensor")
    assert "op:inplace" not in op("aten.add.Tensor")
    assert "op:inplace" not in op("aten._to_copy.default")
