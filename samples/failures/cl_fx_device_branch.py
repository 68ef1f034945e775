"""An attention that skips autocast for meta tensors: under fx the device is a Proxy."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(16, 48)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        if x.device.type != "meta":
            with torch.autocast(device_type="cpu", enabled=False):
                attn = (q @ k.transpose(-1, -2)).softmax(-1)
        else:
            attn = (q @ k.transpose(-1, -2)).softmax(-1)
        return attn @ v


def example_inputs():
    return (torch.randn(2, 5, 16),)
