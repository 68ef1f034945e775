"""A transformer stack that forwards **kwargs from its forward to every block."""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = nn.Linear(dim, dim)

    def forward(self, x, scale=1.0, residual=True):
        h = self.ff(self.norm(x)) * scale
        return x + h if residual else h


class Model(nn.Module):
    def __init__(self, dim=16, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList(Block(dim) for _ in range(depth))

    def forward(self, x, **block_kwargs):
        for blk in self.blocks:
            x = blk(x, **block_kwargs)
        return x


def example_inputs():
    return (torch.randn(2, 4, 16),)
