"""DropConnect-style gating that samples keep masks with numpy from gate probabilities."""

import numpy as np
import torch
from torch import nn


class StochasticGate(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gate = nn.Linear(dim, dim)

    def sample_mask(self, h):
        probs = torch.sigmoid(self.gate(h))
        keep = np.random.binomial(1, probs)
        return torch.as_tensor(keep, dtype=h.dtype)

    def forward(self, h):
        return h * self.sample_mask(h)


class Model(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.gate = StochasticGate(dim)

    def forward(self, x):
        return self.gate(torch.relu(self.fc(x)))


def example_inputs():
    return (torch.randn(2, 8),)
