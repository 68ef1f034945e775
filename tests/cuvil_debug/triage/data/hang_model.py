"""A model whose forward() never returns: capture must be killed by --timeout."""

import time

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        while True:
            time.sleep(0.1)


def example_inputs():
    return (torch.randn(2, 4),)
