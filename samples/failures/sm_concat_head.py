"""A two-tower model whose head ignores the text tower's width."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.img = nn.Linear(16, 32)
        self.txt = nn.Linear(8, 32)
        self.head = nn.Linear(32, 2)

    def forward(self, image, text):
        feat = torch.cat([self.img(image), self.txt(text)], dim=-1)
        return self.head(feat)


def example_inputs():
    return (torch.randn(2, 16), torch.randn(2, 8))
