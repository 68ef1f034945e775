"""Keeps the positive activations and reshapes them into pairs."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        pos = torch.masked_select(h, h > 0)
        pairs = pos.view(-1, 2)
        if pairs.shape[0] > 1:
            return pairs.sum(0)
        return pairs.mean(0)


def example_inputs():
    return (torch.randn(3, 4),)
