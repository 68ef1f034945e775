"""An MLP whose second layer was sized for an older hidden width."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(256, 10)
        self.act = nn.ReLU()

    def forward(self, x):
        h = self.act(self.fc1(x))
        return self.fc2(h)


def example_inputs():
    return (torch.randn(2, 64),)
