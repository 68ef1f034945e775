"""Self-attention whose head size is hidden // heads with a hidden size not divisible by heads."""

import torch
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)

    def forward(self, x):
        b, t, _ = x.shape
        qkv = self.qkv(x).view(b, t, 3, self.heads, self.head_dim)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-2, -1) / self.head_dim**0.5, -1)
        return self.proj((att @ v).transpose(1, 2).reshape(b, t, -1))


class Model(nn.Module):
    def __init__(self, hidden=48, heads=5):
        super().__init__()
        self.attn = SelfAttention(hidden, heads)

    def forward(self, x):
        return x + self.attn(x)


def example_inputs():
    return (torch.randn(2, 4, 48),)
