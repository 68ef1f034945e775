"""forward() never returns: only a timeout ends it."""

import time

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        while True:
            time.sleep(0.05)


def example_inputs():
    return (torch.randn(2, 4),)
