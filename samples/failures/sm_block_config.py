"""A stack of residual blocks configured with the wrong width."""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return x + self.fc(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(4, 32)
        self.block = Block(64)

    def forward(self, x):
        return self.block(self.embed(x))


def example_inputs():
    return (torch.randn(2, 4),)
