"""A per-sample loop over the batch with len()."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        rows = [h[i] * (i + 1) for i in range(len(h))]
        return torch.stack(rows)


def example_inputs():
    return (torch.randn(3, 4),)
