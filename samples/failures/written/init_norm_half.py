"""A bottleneck MLP whose LayerNorm is sized for the bottleneck but applied after up-projection."""

import torch
from torch import nn


class Bottleneck(nn.Module):
    def __init__(self, dim, ratio=2):
        super().__init__()
        self.down = nn.Linear(dim, dim // ratio)
        self.up = nn.Linear(dim // ratio, dim)
        self.norm = nn.LayerNorm(dim // ratio)

    def forward(self, x):
        h = self.up(nn.functional.gelu(self.down(x)))
        return x + self.norm(h)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = Bottleneck(16)

    def forward(self, x):
        return self.mlp(x)


def example_inputs():
    return (torch.randn(2, 3, 16),)
