"""A bias defined only in one branch of a config switch."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, use_bias=False):
        super().__init__()
        self.use_bias = use_bias
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        if self.use_bias:
            bias = torch.ones(8)
        return self.fc(x) + bias


def example_inputs():
    return (torch.randn(2, 8),)
