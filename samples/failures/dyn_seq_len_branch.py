"""Truncates sequences longer than the positional table."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.max_len = 4
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        t = x.size(1)
        h = self.fc(x)
        if t > self.max_len:
            h = h[:, : self.max_len]
        return h


def example_inputs():
    return (torch.randn(2, 6, 8),)
