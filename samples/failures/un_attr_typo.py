"""A classifier that calls a misspelled dropout attribute."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        h = self.dropuot(x)
        return self.fc(h)


def example_inputs():
    return (torch.randn(2, 8),)
