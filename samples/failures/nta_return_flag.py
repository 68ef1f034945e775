"""An encoder with a return_hidden flag, the HF output_hidden_states style."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = nn.Linear(8, 8)
        self.layer2 = nn.Linear(8, 8)

    def forward(self, x, return_hidden: bool = False):
        h1 = torch.relu(self.layer1(x))
        out = self.layer2(h1)
        if return_hidden:
            return out, h1
        return out


def example_inputs():
    return (torch.randn(2, 8),)
