"""A feature normaliser that updates an EMA buffer of the batch mean inside forward."""

import torch
from torch import nn


class EMANorm(nn.Module):
    def __init__(self, dim, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("running_mean", torch.zeros(dim))

    def forward(self, h):
        self.running_mean.mul_(1 - self.momentum).add_(self.momentum * h.mean(0))
        return h - self.running_mean


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)
        self.norm = EMANorm(6)

    def forward(self, x):
        return self.norm(self.fc(x))


def example_inputs():
    return (torch.randn(4, 6),)
