"""A positional encoder that advances a step buffer every forward (streaming decode)."""

import torch
from torch import nn


class StreamingPos(nn.Module):
    def __init__(self, dim, max_len=64):
        super().__init__()
        self.table = nn.Embedding(max_len, dim)
        self.register_buffer("step", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        pos = self.step + torch.arange(x.shape[1])
        self.step += x.shape[1]
        return x + self.table(pos)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = StreamingPos(8)
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return self.fc(self.pos(x))


def example_inputs():
    return (torch.randn(1, 4, 8),)
