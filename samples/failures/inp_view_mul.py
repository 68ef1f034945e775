"""Rescales the first channel of the input through a view."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        first = h[:, 0]
        first.mul_(2.0)
        return h


def example_inputs():
    return (torch.randn(2, 8),)
