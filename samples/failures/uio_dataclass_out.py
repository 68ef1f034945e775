"""A classifier that returns a ModelOutput-style dataclass."""

from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class ClassifierOutput:
    logits: torch.Tensor
    hidden: torch.Tensor


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(8, 8)
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        h = torch.relu(self.body(x))
        return ClassifierOutput(self.head(h), h)


def example_inputs():
    return (torch.randn(2, 8),)
