"""A mask kept in half precision is used as a where() condition."""

import torch
from torch import nn


def make_mask(x):
    return (x > 0).to(torch.float16)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        mask = make_mask(x)
        h = self.fc(x)
        return torch.where(mask, h, torch.zeros_like(h))


def example_inputs():
    return (torch.randn(2, 8),)
