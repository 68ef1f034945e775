"""Stochastic depth that picks a branch with random.choices weighted by learned scores."""

import random

import torch
from torch import nn


class BranchPicker(nn.Module):
    def __init__(self, dim, n):
        super().__init__()
        self.score = nn.Parameter(torch.ones(n))
        self.branches = nn.ModuleList(nn.Linear(dim, dim) for _ in range(n))

    def forward(self, h):
        weights = torch.softmax(self.score, 0)
        (i,) = random.choices(range(len(self.branches)), weights=weights)
        return self.branches[i](h)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(8, 8)
        self.pick = BranchPicker(8, 3)

    def forward(self, x):
        return self.pick(torch.relu(self.inp(x)))


def example_inputs():
    return (torch.randn(2, 8),)
