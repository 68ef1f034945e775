"""A bias-add helper written with the in-place ATen overload on the block input."""

import torch
from torch import nn


def add_bias_(x, bias):
    return torch.ops.aten.add_.Tensor(x, bias)


class BiasedProj(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(dim))
        self.proj = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        return self.proj(add_bias_(x, self.bias))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = BiasedProj(8)

    def forward(self, x):
        return torch.tanh(self.block(x))


def example_inputs():
    return (torch.randn(2, 8),)
