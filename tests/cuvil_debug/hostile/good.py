"""A well-behaved model: triage says ok, diff finds no divergence."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.fc(x))


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 4),)
