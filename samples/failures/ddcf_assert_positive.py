"""An attention pooling layer that asserts its weights are normalised."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(8, 1)

    def forward(self, x):
        weights = torch.softmax(self.score(x), dim=1)
        total = weights.sum()
        assert total > 0, "attention weights vanished"
        return (weights * x).sum(dim=1)


def example_inputs():
    return (torch.randn(2, 5, 8),)
