"""A token mixer whose forward is memoised by a custom decorator keyed on id(input)."""

import functools

import torch
from torch import nn


def memoize_last(fn):
    @functools.wraps(fn)
    def wrapper(self, x):
        key = id(x)
        if getattr(self, "_memo_key", None) == key:
            return self._memo_out
        out = fn(self, x)
        self._memo_key, self._memo_out = key, out
        return out

    return wrapper


class TokenMixer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    @memoize_last
    def forward(self, x):
        mixed = []
        for i, tok in enumerate(x.transpose(0, 1)):
            mixed.append(self.fc(tok) * (i + 1))
        return torch.stack(mixed, 1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.mixer = TokenMixer(8)

    def forward(self, x):
        return self.mixer(x).mean(1)


def example_inputs():
    return (torch.randn(2, 4, 8),)
