"""Co-occurrence counts computed with an integer matmul."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        hits = (self.fc(x) > 0).long()
        co = hits.transpose(1, 2) @ hits
        return co.float().mean(0)


def example_inputs():
    return (torch.randn(2, 3, 4),)
