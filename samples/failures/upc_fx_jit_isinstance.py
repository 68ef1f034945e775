"""A head that accepts a backbone's tensor or its dict of features, checked with
torch.jit.isinstance: on an fx Proxy the check itself branches on the traced value."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Conv2d(3, 8, 3)
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        feats = self.backbone(x)
        if torch.jit.isinstance(feats, dict[str, torch.Tensor]):
            feats = feats["out"]
        return self.fc(feats.mean((2, 3)))


def example_inputs():
    return (torch.randn(2, 3, 8, 8),)
