"""A pooled token repeated along a dynamic sequence (export, dynamic seq)."""

import torch
from torch import nn
from torch.export import Dim


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.token = nn.Parameter(torch.randn(1, 1, 8))
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        tokens = self.fc(x).mean(1, keepdim=True)
        tiled = tokens.repeat(1, x.shape[1], 1)
        return x + tiled


def example_inputs():
    return (torch.randn(2, 5, 8),)


def dynamic_shapes():
    return {"x": {1: Dim("seq", min=2, max=64)}}
