"""An encoder that passes an attention mask to a feed-forward submodule that takes none."""

import torch
from torch import nn


class FeedForward(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim)
        )

    def forward(self, x):
        return self.net(x)


class Layer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = FeedForward(dim)

    def forward(self, x, mask):
        return x + self.ff(self.norm(x), mask=mask)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = Layer(8)

    def forward(self, x, mask):
        return self.layer(x, mask)


def example_inputs():
    return (torch.randn(2, 4, 8), torch.ones(2, 4))
