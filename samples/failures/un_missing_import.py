"""Uses torch.nn.functional as F without importing it."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        return F.gelu(h)  # noqa: F821


def example_inputs():
    return (torch.randn(2, 8),)
