"""A padding-aware pooler whose forward is wrapped by a logging decorator."""

import functools
import logging

import torch
from torch import nn

log = logging.getLogger(__name__)


def logged(fn):
    @functools.wraps(fn)
    def wrapper(self, *args):
        log.debug("calling %s", type(self).__name__)
        return fn(self, *args)

    return wrapper


class LengthPool(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    @logged
    def forward(self, x, mask):
        lengths = mask.sum(1).long().tolist()
        width = max(lengths)
        h = self.fc(x[:, :width])
        return h.sum(1) / mask.sum(1, keepdim=True)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = LengthPool(8)

    def forward(self, x, mask):
        return self.pool(x, mask)


def example_inputs():
    mask = torch.tensor([[1.0, 1, 1, 0, 0], [1, 1, 0, 0, 0]])
    return (torch.randn(2, 5, 8), mask)
