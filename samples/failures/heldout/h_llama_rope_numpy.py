"""Rotary embeddings whose frequencies are computed with numpy from the input."""

import numpy as np
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 8)

    def rope(self, q):
        freqs = np.exp(-np.arange(4) / 4.0) * q
        return freqs

    def forward(self, x):
        return self.rope(self.q(x))


def example_inputs():
    return (torch.randn(2, 4, 8),)
