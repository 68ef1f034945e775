"""Clips activations with numpy inside a submodule."""

import numpy as np
import torch
from torch import nn


class Clip(nn.Module):
    def forward(self, x):
        return np.clip(x, -1.0, 1.0)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.clip = Clip()

    def forward(self, x):
        return self.clip(self.fc(x))


def example_inputs():
    return (torch.randn(2, 8),)
