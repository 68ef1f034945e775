"""A multi-head attention that star-unpacks its input's shape beside the head count:
under fx x.shape is a Proxy and cannot be unpacked."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)

    def forward(self, x):
        b, n, h = *x.shape[:2], self.heads
        q, k, v = self.qkv(x).view(b, n, 3, h, -1).unbind(2)
        attn = (q.transpose(1, 2) @ k.transpose(1, 2).transpose(-1, -2)).softmax(-1)
        return (attn @ v.transpose(1, 2)).transpose(1, 2).reshape(b, n, -1)


def example_inputs():
    return (torch.randn(2, 5, 16),)
