"""Logs the mean activation with an f-string format spec."""

import logging  # noqa: I001

import torch
from torch import nn


log = logging.getLogger(__name__)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        log.debug(f"mean activation {h.mean():.3f}")
        return torch.relu(h)


def example_inputs():
    return (torch.randn(2, 8),)
