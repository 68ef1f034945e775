"""Builds a debug string with %-formatting of an auxiliary loss."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.last_msg = ""

    def forward(self, x):
        h = self.fc(x)
        aux = h.pow(2).mean()
        self.last_msg = "aux loss %.4f" % aux  # noqa: UP031
        return h


def example_inputs():
    return (torch.randn(2, 8),)
