"""A recurrent cell unrolled over the time dimension."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.Linear(16, 8)

    def forward(self, x):
        steps = x.shape[1]
        h = x[:, 0] * 0
        for t in range(steps):
            h = torch.tanh(self.cell(torch.cat([x[:, t], h], dim=-1)))
        return h


def example_inputs():
    return (torch.randn(2, 3, 8),)
