"""Ends its process with os._exit(0) in forward(): no exception, no atexit."""

import os

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        os._exit(0)


def example_inputs():
    return (torch.randn(2, 4),)
