"""An inverted-residual block whose projection assumes an expansion of 4 while expand uses 6."""

import torch
import torch.nn.functional as F
from torch import nn


class InvertedResidual(nn.Module):
    def __init__(self, ch, expansion=6):
        super().__init__()
        mid = ch * expansion
        self.expand = nn.Conv2d(ch, mid, 1)
        self.dw = nn.Conv2d(mid, mid, 3, padding=1, groups=mid)
        self.project = nn.Conv2d(ch * 4, ch, 1)

    def forward(self, x):
        h = F.relu6(self.expand(x))
        h = F.relu6(self.dw(h))
        return x + self.project(h)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.block = InvertedResidual(8)

    def forward(self, img):
        return self.block(self.stem(img)).mean((2, 3))


def example_inputs():
    return (torch.randn(1, 3, 8, 8),)
