"""A residual block (submodule) that skips its MLP for near-zero inputs."""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.mlp = nn.Linear(dim, dim)

    def forward(self, x):
        energy = x.pow(2).mean()
        if energy < 1e-6:
            return x
        return x + self.mlp(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(8), Block(8)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def example_inputs():
    return (torch.randn(2, 8),)
