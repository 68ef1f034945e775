"""A post-processing helper that calls .numpy() on the output."""

import numpy as np
import torch
from torch import nn


def clip_scores(t):
    arr = np.clip(t.numpy(), 0.0, 1.0)
    return torch.from_numpy(arr)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return clip_scores(torch.sigmoid(self.fc(x)))


def example_inputs():
    return (torch.randn(2, 8),)
