"""Token-count normaliser that handles tensors and lists in one helper."""

import torch
from torch import nn


def count_items(v):
    if isinstance(v, torch.Tensor):
        return v.shape[1]
    return len(v)


class MeanPool(nn.Module):
    def forward(self, h):
        return h.sum(1) / count_items(h)


class Model(nn.Module):
    def __init__(self, dim=12):
        super().__init__()
        self.enc = nn.Linear(dim, dim)
        self.pool = MeanPool()
        self.head = nn.Linear(dim, 3)

    def forward(self, x):
        return self.head(self.pool(torch.relu(self.enc(x))))


def example_inputs():
    return (torch.randn(2, 7, 12),)
