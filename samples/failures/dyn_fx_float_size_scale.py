"""Dot-product scaling by the key width read from the input at run time:
float() of a traced size under fx."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.qk = nn.Linear(12, 24)

    def forward(self, x):
        q, k = self.qk(x).chunk(2, dim=-1)
        scale = 1.0 / float(k.size(-1)) ** 0.5
        return torch.softmax(q @ k.transpose(1, 2) * scale, dim=-1)


def example_inputs():
    return (torch.randn(2, 7, 12),)
