"""Grouped-query attention that tries a view of the key heads and falls back on error."""

import torch
from torch import nn


class GQA(nn.Module):
    def __init__(self, dim=32, heads=4, kv_heads=2):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, dim // heads
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * kv_heads * self.hd)
        self.o = nn.Linear(dim, dim)

    def split_kv(self, kv, b, t):
        try:
            k, v = kv.view(b, t, 2, self.heads, self.hd).unbind(2)
        except RuntimeError:
            k, v = kv.view(b, t, 2, self.kv_heads, self.hd).unbind(2)
            rep = self.heads // self.kv_heads
            k, v = k.repeat_interleave(rep, 2), v.repeat_interleave(rep, 2)
        return k.transpose(1, 2), v.transpose(1, 2)

    def forward(self, x):
        b, t, _ = x.shape
        q = self.q(x).view(b, t, self.heads, self.hd).transpose(1, 2)
        k, v = self.split_kv(self.kv(x), b, t)
        att = torch.softmax(q @ k.transpose(-1, -2) / self.hd**0.5, -1)
        return self.o((att @ v).transpose(1, 2).reshape(b, t, -1))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = GQA()
        self.norm = nn.LayerNorm(32)

    def forward(self, x):
        return x + self.attn(self.norm(x))


def example_inputs():
    return (torch.randn(2, 6, 32),)
