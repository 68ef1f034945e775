"""A GRU encoder submodule inside a classifier, traced with torch.fx."""

import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 8, batch_first=True)

    def forward(self, x):
        out, _ = self.gru(x)
        return out[:, -1]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = Encoder()
        self.cls = nn.Linear(8, 2)

    def forward(self, x):
        return self.cls(self.enc(x))


def example_inputs():
    return (torch.randn(2, 5, 8),)
