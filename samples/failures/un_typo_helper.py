"""A gated unit whose helper misspells a variable."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 16)

    def _glu(self, hidden):
        a, b = hidden[..., :8], hidden[..., 8:]
        return a * torch.sigmoid(hiden[..., 8:]) + 0 * b  # noqa: F821

    def forward(self, x):
        return self._glu(self.fc(x))


def example_inputs():
    return (torch.randn(2, 8),)
