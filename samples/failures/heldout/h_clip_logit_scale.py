"""CLIP-style logits with text features stored in float64."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.img = nn.Linear(8, 8)
        self.text = nn.Parameter(torch.randn(3, 8).double())

    def forward(self, x):
        img = self.img(x)
        return img @ self.text.t()


def example_inputs():
    return (torch.randn(2, 8),)
