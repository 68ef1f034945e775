"""Reads address 0 in forward(): the process dies with SIGSEGV."""

import ctypes

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        ctypes.string_at(0)
        return x


def example_inputs():
    return (torch.randn(2, 4),)
