"""The mechanisms written from zoo16's misses (docs/TRIAGE.md, "zoo16: measured once,
unseen, then development data"), in other spellings than the libraries' (snac,
pytorch-ood, easyfsl, positional-encodings, nbeats-pytorch), captured for real, with
their root line: a training step inside forward(); an attribute that shadows a
torch.nn.Module method; a TorchScript function fx hands a Proxy; `len(x.shape)` under
fx; math with a numpy operand on a size read under fx."""

from __future__ import annotations

import textwrap

from triage_cases import mechanism_tests

_BACKWARD = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.centers = nn.Parameter(torch.randn(3, 4))

    def forward(self, x):
        with torch.enable_grad():
            centers = self.centers.detach().clone().requires_grad_()
            loss = torch.cdist(x, centers).min(-1).values.mean()
            loss.backward()
            refined = centers - 0.1 * centers.grad
        return torch.cdist(x, refined.detach())


def example_inputs():
    return (torch.randn(5, 4),)
"""

_SHADOWED = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(2)])
        # every weight in one list, for the optimizer
        self.parameters = nn.ParameterList(
            [p for layer in self.layers for p in layer.parameters()]
        )

    def forward(self, x):
        for layer in self.layers:
            x = torch.tanh(layer(x))
        return x


def example_inputs():
    return (torch.randn(2, 4),)
"""

_SCRIPTED = """
import torch
from torch import nn


@torch.jit.script
def periodic(x, alpha):
    return x + torch.sin(alpha * x).pow(2) / alpha


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(1, 4))

    def forward(self, x):
        return periodic(x, self.alpha)


def example_inputs():
    return (torch.randn(2, 4),)
"""

_LEN_SHAPE = """
import torch
from torch import nn


def drop_unit_dim(t):
    if len(t.shape) == 3 and t.shape[-1] == 1:
        return t[..., 0]
    return t


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(5, 2)

    def forward(self, x):
        return self.head(drop_unit_dim(x))


def example_inputs():
    return (torch.randn(2, 5, 1),)
"""

_MATH_NUMPY = """
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.hop = np.prod([2, 2])

    def forward(self, wave):
        length = wave.shape[-1]
        padded = math.ceil(length / self.hop) * self.hop
        return F.pad(wave, (0, padded - length))


def example_inputs():
    return (torch.randn(2, 1, 10),)
"""

CASES = [
    # (name, frontend, source, category, text of a root line)
    # easyfsl's TIM / Finetune: an optimizer loop over the prototypes in forward()
    ("backward_in_forward", "fx", _BACKWARD, "capture-limitation", "loss.backward()"),
    # nbeats-pytorch's `self.parameters = nn.ParameterList(...)`
    (
        "shadowed_method",
        "export",
        _SHADOWED,
        "capture-limitation",
        "self.parameters = nn.ParameterList",
    ),
    # snac's @torch.jit.script `snake`
    ("scripted_helper", "fx", _SCRIPTED, "capture-limitation", "periodic(x, self"),
    # nbeats-pytorch's squeeze_last_dim: `len(tensor.shape) == 3`
    ("len_of_shape", "fx", _LEN_SHAPE, "dynamic-shape", "if len(t.shape) == 3"),
    # snac's `math.ceil(length / pad_to)` with pad_to from np.prod
    ("math_numpy_on_size", "fx", _MATH_NUMPY, "dynamic-shape", "math.ceil("),
]


case_records, test_zoo16_mechanism_is_triaged = mechanism_tests(
    "zoo16", CASES, lambda src: textwrap.dedent(src).lstrip()
)
