"""A temperature taken out of a tensor with .item() and then branched on: export fails at the `if`."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.temp = nn.Linear(8, 1)
        self.out = nn.Linear(8, 8)

    def forward(self, x):
        t = self.temp(x).mean().item()
        h = self.out(x)
        if t > 0:
            h = h / 2
        return h


def example_inputs():
    return (torch.randn(2, 8),)
