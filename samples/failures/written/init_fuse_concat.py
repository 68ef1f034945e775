"""A gated skip block whose fuse layer was sized for a concatenation the forward never does."""

import torch
from torch import nn


class SkipFuse(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, dim), nn.SiLU())
        self.fuse = nn.Linear(dim * 2, dim)

    def forward(self, x):
        h = self.body(x)
        return self.fuse(h + x)


class Model(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.blocks = nn.Sequential(SkipFuse(dim), SkipFuse(dim))

    def forward(self, x):
        return self.blocks(x)


def example_inputs():
    return (torch.randn(2, 16),)
