"""Casts integer token features to float only when needed: `x.is_floating_point()`
under fx records a call and returns a Proxy, whose truth value is asked."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(9, 3)

    def forward(self, feats):
        if not feats.is_floating_point():
            feats = feats.float()
        return self.lin(feats)


def example_inputs():
    return (torch.randn(2, 9),)
