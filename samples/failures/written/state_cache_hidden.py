"""A decoder layer that stashes its hidden state in a plain tensor attribute for a later call."""

import torch
from torch import nn


class DecoderLayer(nn.Module):
    def __init__(self, dim, batch=2, seq=3):
        super().__init__()
        self.ff = nn.Linear(dim, dim)
        self.last_hidden = torch.zeros(batch, seq, dim)

    def forward(self, x):
        h = torch.relu(self.ff(x))
        self.last_hidden.copy_(h.detach())
        return x + h


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = DecoderLayer(8)
        self.out = nn.Linear(8, 8)

    def forward(self, x):
        return self.out(self.layer(x))


def example_inputs():
    return (torch.randn(2, 3, 8),)
