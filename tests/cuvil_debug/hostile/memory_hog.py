"""Allocates until MemoryError in forward() (run it only under --max-memory)."""

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        hoard = []
        while True:
            hoard.append(bytearray(64 << 20))


def example_inputs():
    return (torch.randn(2, 4),)
