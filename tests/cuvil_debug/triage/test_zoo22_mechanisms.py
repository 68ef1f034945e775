"""The mechanisms written from zoo22's misses (docs/TRIAGE.md, "zoo22: measured once,
unseen, then development data"), in other spellings than the libraries' (hippynn,
lightly, allRank), captured for real, with their root line: a list input iterated under
fx; an unfed flag tested behind a guard that reads a tuple attribute named `size`; a
conditional expression whose test is the rank and whose other arm reads a size; a float
tensor used as an index (eager fails); one Dim declared on two inputs of different
sizes; a boolean-mask index `x[~mask]` upstream of the op that raised. All six fail
with the triage of 99f58ee."""

from __future__ import annotations

from triage_cases import mechanism_tests

_LIST_LOOP = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleList([nn.Linear(3, 1), nn.Linear(5, 1)])

    def forward(self, feats, scale):
        outs = [head(f) for f, head in zip(feats, self.heads)]
        return torch.cat(outs, 1) * scale


def example_inputs():
    return ([torch.randn(4, 3), torch.randn(4, 5)], torch.ones(4, 1))
"""

_FLAG_BRANCH = """
import torch
from torch import nn


class Queue(nn.Module):
    def __init__(self, size=(16, 8)):
        super().__init__()
        self.size = size
        self.register_buffer("bank", torch.randn(*size))

    def forward(self, x, enqueue: bool = False):
        if self.size[0] == 0:
            return x
        bank = self.bank.clone()
        if enqueue:
            self.bank[: x.shape[0]] = x.detach()
        return x @ bank.T


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.queue = Queue()

    def forward(self, x, enqueue: bool = False):
        return self.queue(x, enqueue=enqueue)


def example_inputs():
    return (torch.randn(4, 8),)
"""

_RANK_IFEXP = """
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x, seg):
        tail = (1,) if x.dim() == 1 else x.shape[1:]
        out = torch.zeros(3, *tail)
        return out.index_add(0, seg, x)


def example_inputs():
    return (torch.randn(6, 4), torch.tensor([0, 0, 1, 1, 2, 2]))
"""

_FLOAT_INDEX = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.randn(10, 4))

    def forward(self, x, pos):
        return x + self.table[pos]


def example_inputs():
    pos = torch.arange(5).float()
    return (torch.randn(5, 4), pos)
"""

_SHARED_DIM = """
import torch
from torch import nn
from torch.export import Dim

N = Dim("n", min=2, max=64)
DYNAMIC_SHAPES = (
    {0: N},
    {0: N},
)


class Model(nn.Module):
    def forward(self, queries, keys):
        scores = queries @ keys.T
        return scores.softmax(-1)


def example_inputs():
    return (torch.randn(4, 8), torch.randn(6, 8))
"""

_MASK_VIEW = """
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, a, b):
        n = a.shape[0]
        mask = torch.eye(n, dtype=torch.bool)
        sim = a @ b.T
        pos = sim[mask]
        neg = sim[~mask].view(n, -1)
        spread = torch.cat([neg, neg], dim=1)
        return (torch.logsumexp(spread, dim=1) - pos).mean()


def example_inputs():
    return (torch.randn(4, 8), torch.randn(4, 8))
"""


CASES = [
    # (name, frontend, source, category, text of a root line)
    # hippynn's HEnergy: `zip(all_features, self.layers)` over a list input
    ("list_loop", "fx", _LIST_LOOP, "non-tensor-argument", "zip(feats, self.heads)"),
    # lightly's NNMemoryBankModule: `if update:` after `if self.size[0] == 0:`
    ("flag_branch", "fx", _FLAG_BRANCH, "non-tensor-argument", "if enqueue:"),
    # hippynn's MolSummer: `(1,) if x.ndimension() == 1 else x.shape[1:]`
    ("rank_ifexp", "fx", _RANK_IFEXP, "capture-limitation", "if x.dim() == 1"),
    # allRank's FixedPositionalEncoding fed float indices
    ("float_index", "export", _FLOAT_INDEX, "dtype-mismatch", "self.table[pos]"),
    # lightly's MSNLoss with one batch Dim on anchors and targets
    ("shared_dim", "export", _SHARED_DIM, "dynamic-shape", "DYNAMIC_SHAPES = ("),
    # lightly's DCLLoss: `sim[~diag_mask].view(batch_size, -1)`, the guard raised later
    ("mask_view", "export", _MASK_VIEW, "dynamic-shape", "sim[~mask]"),
]


case_records, test_zoo22_mechanism_is_triaged = mechanism_tests(
    "zoo22", CASES, lambda src: src
)
