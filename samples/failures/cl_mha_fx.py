"""A transformer block built on nn.MultiheadAttention, traced with torch.fx."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(8, 2, batch_first=True)
        self.norm = nn.LayerNorm(8)

    def forward(self, x):
        h = self.norm(x)
        a, _ = self.attn(h, h, h)
        return x + a


def example_inputs():
    return (torch.randn(2, 4, 8),)
