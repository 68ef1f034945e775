"""A patch embedding written with einops' rearrange function: einops picks its backend
by the tensor's type and knows no fx Proxy, so fx stops at this valid line."""

import torch
from einops import rearrange
from torch import nn


class Model(nn.Module):
    def __init__(self, patch: int = 4, dim: int = 32):
        super().__init__()
        self.patch = patch
        self.proj = nn.Linear(3 * patch * patch, dim)

    def forward(self, img):
        p = self.patch
        patches = rearrange(img, "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=p, p2=p)
        return self.proj(patches)


def example_inputs():
    return (torch.randn(2, 3, 8, 8),)
