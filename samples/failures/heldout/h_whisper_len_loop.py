"""A decoder that loops over the layers of a stacked tensor of states."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        states = torch.stack([x, self.fc(x)])
        total = x * 0
        for s in states:
            total = total + s
        return total


def example_inputs():
    return (torch.randn(2, 8),)
