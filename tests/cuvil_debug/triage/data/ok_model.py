"""A model Cuvil compiles: triage reports it as ok."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(self.fc(x))


def example_inputs():
    return (torch.randn(2, 4),)
