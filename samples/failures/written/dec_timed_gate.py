"""A gated block whose forward is wrapped by a functools.wraps timing decorator."""

import functools
import time

import torch
from torch import nn

TIMINGS = {}


def timed(fn):
    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        start = time.perf_counter()
        out = fn(self, *args, **kwargs)
        TIMINGS[type(self).__name__] = time.perf_counter() - start
        return out

    return wrapper


class GatedBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gate = nn.Linear(dim, 1)
        self.body = nn.Linear(dim, dim)

    @timed
    def forward(self, x):
        g = torch.sigmoid(self.gate(x)).mean()
        if g < 0.1:
            return x
        return x + self.body(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = GatedBlock(8)

    def forward(self, x):
        return self.block(x)


def example_inputs():
    return (torch.randn(2, 8),)
