"""A block that logs activation statistics with str.format(**stats)."""

import logging

import torch
from torch import nn

log = logging.getLogger(__name__)
TEMPLATE = "act mean={mean:.3f} max={max:.3f}"


def activation_stats(h):
    return {"mean": h.mean(), "max": h.amax()}


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        h = torch.relu(self.fc(x))
        stats = activation_stats(h)
        log.debug(TEMPLATE.format(**stats))
        return h


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block(8)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.block(x))


def example_inputs():
    return (torch.randn(3, 8),)
