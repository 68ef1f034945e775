"""A warmup-aware block that counts its calls on the module to ramp a residual scale."""

import torch
from torch import nn


class WarmupResidual(nn.Module):
    def __init__(self, dim, warmup=100):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.warmup = warmup
        self.calls = torch.zeros(())

    def forward(self, x):
        self.calls += 1
        alpha = torch.clamp(self.calls / self.warmup, max=1.0)
        return x + alpha * self.fc(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = WarmupResidual(8)
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.block(x))


def example_inputs():
    return (torch.randn(2, 8),)
