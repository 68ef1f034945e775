"""The mechanisms written from zoo27's misses (docs/TRIAGE.md, "zoo27: measured once,
unseen, then development data"), in other spellings than the libraries' (dnc,
torchlayers), captured for real, with their root line: an item assignment into what
came out of a container default left unfed, under fx; a wrong-rank input the model
indexes past its rank, failing eagerly with an IndexError, under export; weights drawn
in place inside forward() under `torch.no_grad()`, captured as
`cuvil.compile(dynamic_shapes=...)` captures (without grad), where triage reported
`ok`. Each fails with the triage of ae23260."""

from __future__ import annotations

from triage_cases import mechanism_tests

_UNFED_STORE = """
import torch
from torch import nn


class Cache(nn.Module):
    def update(self, store, value):
        if store is None:
            return {"value": value}
        store["value"] = store["value"] + value
        return store


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.cache = Cache()

    def forward(self, x, states=(None, None)):
        store = self.cache.update(states[1], self.fc(x))
        return store["value"]


def example_inputs():
    return (torch.randn(2, 6),)
"""

_WRONG_RANK = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.step = nn.Linear(4, 4)

    def forward(self, seq):
        outs = [self.step(seq[:, t, :]) for t in range(seq.shape[1])]
        return torch.stack(outs, 1)


def example_inputs():
    return (torch.randn(3, 4),)
"""

_DRAWN_WEIGHTS = """
import torch
from torch import nn
from torch.export import Dim

BATCH = Dim("batch", min=1, max=32)
DYNAMIC_SHAPES = ({0: BATCH},)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(8))

    def forward(self, x):
        w = torch.empty(8, x.shape[-1])
        with torch.no_grad():
            nn.init.normal_(w, std=0.02)
        return x @ w.t() + self.bias


def example_inputs():
    return (torch.randn(3, 5),)
"""

CASES = [
    # (name, frontend, source, category, text of a root line)
    # dnc's `hx=(None, None, None)` left unfed, then `hidden["memory"] = ...`
    ("unfed_store", "fx", _UNFED_STORE, "non-tensor-argument", "states=(None, None)"),
    # dnc fed a rank-2 input where it indexes `input[:, x, :]`
    ("wrong_rank", "export", _WRONG_RANK, "shape-mismatch", "torch.randn(3, 4)"),
    # torchlayers' Conv initialising its weight on the first call, dynamic batch
    ("drawn_weights", "export", _DRAWN_WEIGHTS, "inplace-mutation", "nn.init.normal_"),
]


case_records, test_zoo27_mechanism_is_triaged = mechanism_tests(
    "zoo27", CASES, lambda src: src
)
