"""A helper describes a tensor with str.format for tracing hooks."""

import torch
from torch import nn


def describe(t):
    return "std={:.2f}".format(t.std())  # noqa: UP032


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.notes = []

    def forward(self, x):
        h = self.fc(x)
        self.notes.append(describe(h))
        return h


def example_inputs():
    return (torch.randn(2, 8),)
