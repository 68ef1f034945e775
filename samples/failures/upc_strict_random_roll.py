"""A training-style time jitter left in forward(): a Python random draw that
dynamo (strict export) would have to turn into an extra input."""

import random

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, max_jitter=3):
        super().__init__()
        self.max_jitter = max_jitter
        self.conv = nn.Conv1d(3, 3, 5, padding=2)

    def forward(self, sig):
        jitter = random.randint(0, self.max_jitter)
        return self.conv(torch.roll(sig, jitter, dims=-1))


def example_inputs():
    return (torch.randn(2, 3, 16),)
