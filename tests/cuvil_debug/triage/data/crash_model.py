"""A model whose capture kills the process (as a segfault in an extension would)."""

import os

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        os._exit(139)


def example_inputs():
    return (torch.randn(2, 4),)
