"""Keeps the prompt tokens a mask marks valid with nonzero: the number of tokens
depends on the data."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, mask):
        keep = torch.nonzero(mask.flatten()).flatten()
        tokens = x.flatten(0, 1).index_select(0, keep)
        return self.proj(tokens)


def example_inputs():
    return (torch.randn(2, 5, 8), torch.rand(2, 5) > 0.5)
