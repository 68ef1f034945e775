"""Attention that buckets its scores (torch.bucketize) before the softmax."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 8)

    def forward(self, x):
        q = self.q(x)
        scores = q @ q.transpose(-1, -2)
        scores = torch.bucketize(scores, torch.tensor([-1.0, 0.0, 1.0])).float()
        return torch.softmax(scores, dim=-1) @ q


def example_inputs():
    return (torch.randn(2, 4, 8),)
