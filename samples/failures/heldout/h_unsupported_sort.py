"""Nucleus sampling logits sorted with torch.sort."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lm = nn.Linear(8, 16)

    def forward(self, x):
        logits = self.lm(x)
        ordered = torch.sort(logits, dim=-1, descending=True).values
        return ordered.softmax(-1)


def example_inputs():
    return (torch.randn(2, 8),)
