"""A recurrent cell unrolled over time with a generator over range(seq_len), dynamic length."""

import torch
from torch import nn


class Cell(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.inp = nn.Linear(dim, dim)

    def forward(self, xt):
        return torch.tanh(self.inp(xt))


class Model(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.cell = Cell(dim)
        self.head = nn.Linear(dim, 2)

    def forward(self, x):
        steps = tuple(self.cell(x[:, t]) for t in range(x.size(1)))
        h = torch.stack(steps, dim=1).mean(1)
        return self.head(h)


def example_inputs():
    return (torch.randn(2, 6, 8),)


DYNAMIC_SHAPES = ({1: torch.export.Dim("seq", min=2, max=64)},)
