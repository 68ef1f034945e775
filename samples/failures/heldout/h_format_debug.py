"""A layer that keeps a formatted summary of its gate for debugging."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(8, 1)
        self.summary = ""

    def forward(self, x):
        g = torch.sigmoid(self.gate(x))
        self.summary = "gate={:.2f}".format(g.mean())  # noqa: UP032
        return x * g


def example_inputs():
    return (torch.randn(2, 8),)
