"""A conv block that pads with reflection in a submodule."""

import torch
import torch.nn.functional as F
from torch import nn


class ReflectConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x):
        x = F.pad(x, (1, 1, 1, 1), mode="reflect")
        return self.conv(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = ReflectConv()

    def forward(self, x):
        return torch.relu(self.block(x))


def example_inputs():
    return (torch.randn(1, 3, 8, 8),)
