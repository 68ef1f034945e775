"""FPN-style neck that accepts one feature map or a list of them."""

import torch
from torch import nn


class Neck(nn.Module):
    def __init__(self, chans, out):
        super().__init__()
        self.lateral = nn.ModuleList(nn.Conv2d(c, out, 1) for c in chans)

    def forward(self, feats):
        if isinstance(feats, torch.Tensor):
            feats = [feats]
        return [conv(f) for conv, f in zip(self.lateral, feats)]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.neck = Neck((8,), 16)

    def forward(self, img):
        outs = self.neck(self.stem(img))
        return outs[0].mean((-2, -1))


def example_inputs():
    return (torch.randn(1, 3, 8, 8),)
