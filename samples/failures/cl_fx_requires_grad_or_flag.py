"""A checkpoint-style switch: recompute only when the input needs gradients or the
caller asks. Under fx `x.requires_grad` is a Proxy attribute, and its truth value
is asked first."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 10), nn.GELU(), nn.Linear(10, 10))

    def forward(self, x, force_recompute: bool = False):
        if x.requires_grad or force_recompute:
            return self.body(x.detach()) + x
        return self.body(x)


def example_inputs():
    return (torch.randn(3, 10),)
