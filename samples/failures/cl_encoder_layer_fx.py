"""nn.TransformerEncoderLayer wrapped in a small encoder, traced with torch.fx."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(4, 8)
        self.layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)

    def forward(self, x):
        h = self.embed(x)
        return self.layer(h)


def example_inputs():
    return (torch.randn(2, 5, 4),)
