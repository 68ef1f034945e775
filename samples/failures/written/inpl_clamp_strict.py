"""A depth-map head that clamps its input depth in place in a helper."""

import torch
from torch import nn


def sanitize_depth(depth, max_depth):
    depth.clamp_(min=0.0, max=max_depth)
    return depth.log1p()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.max_depth = 10.0

    def forward(self, rgb_gray, depth):
        d = sanitize_depth(depth, self.max_depth)
        return self.conv(torch.cat([rgb_gray, d], 1)).mean((2, 3))


def example_inputs():
    return (torch.randn(1, 1, 6, 6), torch.rand(1, 1, 6, 6) * 20)
