"""Truncates a sequence at a length the model predicts."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.len_head = nn.Linear(8, 1)

    def predicted_length(self, x):
        return int(torch.sigmoid(self.len_head(x)).mean() * 6) + 1

    def forward(self, x):
        n = self.predicted_length(x)
        return x[:, :n] * 2


def example_inputs():
    return (torch.randn(2, 6, 8),)
