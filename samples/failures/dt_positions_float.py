"""Positional embeddings indexed with float positions."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = nn.Embedding(8, 4)

    def positions(self, n):
        return torch.arange(n, dtype=torch.float32)

    def forward(self, x):
        p = self.positions(4)
        return x + self.pos(p)


def example_inputs():
    return (torch.randn(2, 4, 4),)
