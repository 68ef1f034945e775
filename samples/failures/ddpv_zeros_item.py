"""Pads a batch with as many rows as there are positive scores."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(4, 1)

    def forward(self, x):
        s = self.score(x)
        n = (s > 0).sum().item()
        pad = torch.zeros(n, 4)
        return torch.cat([x, pad], dim=0)


def example_inputs():
    return (torch.randn(5, 4),)
