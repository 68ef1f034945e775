"""A mixture-of-experts block that skips the expert when the gate score is low."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(16, 1)
        self.expert = nn.Linear(16, 16)

    def forward(self, x):
        score = torch.sigmoid(self.gate(x)).mean()
        h = x * 2
        if score > 0.5:
            h = self.expert(h)
        return h


def example_inputs():
    return (torch.randn(4, 16),)
