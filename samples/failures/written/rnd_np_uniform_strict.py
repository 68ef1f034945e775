"""Spatial dropout that draws a keep mask with numpy from the activation's shape."""

import numpy as np
import torch
from torch import nn


class SpatialDrop(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, h):
        noise = np.random.default_rng().uniform(size=h.shape[:2])
        keep = torch.as_tensor(noise > self.p, dtype=h.dtype)
        return h * keep[..., None, None] / (1 - self.p)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.drop = SpatialDrop(0.2)

    def forward(self, x):
        return self.drop(torch.relu(self.conv(x))).mean((2, 3))


def example_inputs():
    return (torch.randn(2, 3, 6, 6),)
