"""A global-attention switch read out of a mask with .item() and branched on (non-strict export)."""

import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, mask):
        h = self.proj(x)
        use_global = mask.flatten().any().item()
        if use_global:
            h = h + h.mean(dim=1, keepdim=True)
        return h


def Model():
    return Gate()


def example_inputs():
    return [torch.randn(2, 4, 8), torch.tensor([[1, 0, 0, 1], [0, 0, 1, 0]])]
