"""A speech encoder with a bidirectional nn.GRU, traced with fx."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(8, 4, batch_first=True, bidirectional=True)

    def forward(self, x):
        y = self.rnn(x)[0]
        return y.mean(1)


def example_inputs():
    return (torch.randn(2, 5, 8),)
