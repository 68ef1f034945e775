"""A head reading a misspelled config attribute."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden_size = 8
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        return h.view(-1, self.hiden_size)


def example_inputs():
    return (torch.randn(2, 8),)
