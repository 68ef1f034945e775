"""A downsampler that asserts its input's channel count: under fx the size is a Proxy
and the assert branches on it."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, channels: int = 4):
        super().__init__()
        self.channels = channels
        self.conv = nn.Conv2d(channels, channels, 3, stride=2, padding=1)

    def forward(self, x):
        assert x.shape[1] == self.channels
        return self.conv(x)


def example_inputs():
    return (torch.randn(2, 4, 8, 8),)
