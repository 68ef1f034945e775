"""Multi-head mixing that loops over the heads of a tensor."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 8)

    def forward(self, x):
        h = self.qkv(x).view(2, 2, 4)
        outs = []
        for head in h.unbind(1):
            outs.append(head * 2)
        return torch.stack(outs, dim=1)


def example_inputs():
    return (torch.randn(2, 8),)
