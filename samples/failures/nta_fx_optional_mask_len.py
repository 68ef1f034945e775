"""An optional keep-mask: fx traces the unpassed None as a Proxy, so the masking path
runs and len() meets a traced value."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, keep=None):
        if keep is not None:
            x = x[:, : len(keep)]
        return self.proj(x)


def example_inputs():
    return (torch.randn(2, 6, 8),)
