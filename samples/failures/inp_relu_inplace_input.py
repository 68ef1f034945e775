"""Applies an in-place clamp to the raw input features."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, feats):
        feats.clamp_(min=0.0)
        return self.fc(feats)


def example_inputs():
    return (torch.randn(2, 8),)
