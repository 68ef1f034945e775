"""Cross-attention whose score helper multiplies queries by un-transposed keys."""

import torch
from torch import nn


def attention_scores(q, k):
    return torch.bmm(q, k) / q.shape[-1] ** 0.5


class CrossAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * dim)

    def forward(self, x, memory):
        k, v = self.kv(memory).chunk(2, -1)
        att = torch.softmax(attention_scores(self.q(x), k), -1)
        return att @ v


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.xattn = CrossAttention(8)

    def forward(self, x, memory):
        return x + self.xattn(x, memory)


def example_inputs():
    return (torch.randn(2, 3, 8), torch.randn(2, 5, 8))
