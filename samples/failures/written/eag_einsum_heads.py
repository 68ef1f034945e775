"""Relative-position attention whose einsum contracts the wrong axis of the key tensor."""

import torch
from torch import nn


class RelAttention(nn.Module):
    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.h, self.d = heads, dim // heads
        self.qk = nn.Linear(dim, 2 * dim)

    def forward(self, x):
        b, t, _ = x.shape
        q, k = self.qk(x).view(b, t, 2, self.h, self.d).permute(2, 0, 3, 1, 4)
        scores = torch.einsum("bhqd,bhdk->bhqk", q, k)
        return torch.softmax(scores, -1).mean(1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = RelAttention()

    def forward(self, x):
        return self.attn(x)


def example_inputs():
    return (torch.randn(2, 5, 16),)
