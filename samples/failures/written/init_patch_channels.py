"""A patch embedding that hard-codes 3 input channels while the config asks for 1."""

import torch
from torch import nn


class PatchEmbed(nn.Module):
    def __init__(self, patch, in_chans, dim):
        super().__init__()
        self.patch, self.in_chans = patch, in_chans
        self.proj = nn.Linear(patch * patch * 3, dim)

    def forward(self, img):
        b, c, h, w = img.shape
        p = self.patch
        x = img.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 1, 3, 5)
        return self.proj(x.reshape(b, (h // p) * (w // p), c * p * p))


class Model(nn.Module):
    def __init__(self, patch=4, in_chans=1, dim=16):
        super().__init__()
        self.embed = PatchEmbed(patch, in_chans, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, img):
        return self.norm(self.embed(img)).mean(1)


def example_inputs():
    return (torch.randn(2, 1, 8, 8),)
