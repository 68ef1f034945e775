"""A projection matrix registered as a float64 buffer."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("proj", torch.randn(8, 4, dtype=torch.float64))
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        return torch.matmul(h, self.proj)


def example_inputs():
    return (torch.randn(2, 8),)
