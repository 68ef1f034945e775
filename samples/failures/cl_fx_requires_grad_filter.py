"""Keeps the branch outputs that will receive gradients: a comprehension filter on
`.requires_grad` of traced tensors (fx: a Proxy attribute, not a bool)."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.left = nn.Linear(6, 6)
        self.right = nn.Linear(6, 6)

    def forward(self, x, extra=None):
        outs = [self.left(x), self.right(x)]
        if extra is not None:
            outs.append(extra)
        live = [o for o in outs if o.requires_grad]
        return torch.stack(live).sum(0)


def example_inputs():
    return (torch.randn(4, 6),)
