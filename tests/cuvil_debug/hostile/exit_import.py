"""Ends its process with os._exit(0) as soon as it is imported."""

import os

import torch
from torch import nn

os._exit(0)


class Model(nn.Module):
    def forward(self, x):
        return x


def example_inputs():
    return (torch.randn(2, 4),)
