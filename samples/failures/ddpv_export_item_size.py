"""Padding rows counted from a tensor with .item(), used as a size."""

import torch
from torch import nn


class Pad(nn.Module):
    def forward(self, x, n):
        extra = int(n.max().item())
        return torch.cat([x, x.new_zeros(extra, x.shape[1])])


def Model():
    return Pad()


def example_inputs():
    return [torch.randn(3, 4), torch.tensor([1, 2])]
