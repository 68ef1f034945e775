"""A sequence tagger on top of nn.LSTM, traced with torch.fx."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(8, 8, batch_first=True)
        self.tag = nn.Linear(8, 3)

    def encode(self, x):
        out = self.rnn(x)[0]
        return out

    def forward(self, x):
        return self.tag(self.encode(x))


def example_inputs():
    return (torch.randn(2, 5, 8),)
