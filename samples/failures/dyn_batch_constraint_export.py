"""Exported with a dynamic batch, but squeezes a batch of one in Python."""

import torch  # noqa: I001
from torch import nn


from torch.export import Dim


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        if x.shape[0] > 2:
            h = h * 2
        return h


def example_inputs():
    return (torch.randn(4, 8),)


def dynamic_shapes():
    return {"x": {0: Dim("batch")}}
