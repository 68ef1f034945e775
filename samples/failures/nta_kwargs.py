"""A block that reads optional settings from **kwargs."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x, **kwargs):
        scale = kwargs.get("scale", 1.0)
        return self.fc(x) * scale


def example_inputs():
    return (torch.randn(2, 8),)
