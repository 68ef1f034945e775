"""Noise injection whose scale is drawn by random.lognormvariate from the batch std."""

import random

import torch
from torch import nn


def noise_scale(h, spread):
    return random.lognormvariate(torch.log(h.std()), spread)


class NoisyBlock(nn.Module):
    def __init__(self, dim, spread=0.1):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.spread = spread

    def forward(self, x):
        h = self.fc(x)
        return h + noise_scale(h, self.spread) * torch.ones_like(h)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = NoisyBlock(8)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.block(x))


def example_inputs():
    return (torch.randn(4, 8),)
