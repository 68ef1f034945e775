"""A learned per-channel bias broadcast against the input: the common size is computed
with torch.broadcast_shapes over x.shape, which under fx is a Proxy, not ints."""

import torch
from torch import nn


def common_size(*tensors):
    return torch.broadcast_shapes(*(t.shape for t in tensors))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(1, 6, 1))
        self.mix = nn.Conv1d(6, 6, 1)

    def forward(self, x):
        size = common_size(self.bias, x)
        return self.mix(x + self.bias.expand(size))


def example_inputs():
    return (torch.randn(3, 6, 10),)
