"""The mechanisms written from zoo17's misses (docs/TRIAGE.md, "zoo17: measured once,
unseen, then development data"), in other spellings than the libraries' (geotorch,
torchnmf, torch-cubic-spline-grids, FrEIA, unet), captured for real, with their root
line: `torch.tensor` of a size and `torch.as_tensor` of the input under fx; a model's
own message formatting a size export made symbolic; a padding list read with
`.tolist()` that export cannot guard on (the eager replay finds the read); a wrong
split an eager run refuses too; the `if p is None:` an unfed Optional slips through;
the line building an output that is no tensor; the example input Cuvil names. Seven
of the eight fail with the triage of 6eb4c1f (the numpy output's line was found there
too, by another path)."""

from __future__ import annotations

import textwrap

from triage_cases import mechanism_tests

_TENSOR_OF_SIZE = """
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv1d(2, 2, 1)

    def forward(self, x, ref):
        excess = torch.tensor(x.shape[-1:]) - torch.tensor(ref.shape[-1:])
        x = x[..., : x.shape[-1] - int(excess[0])]
        return self.proj(x) + ref


def example_inputs():
    return (torch.randn(1, 2, 9), torch.randn(1, 2, 7))
"""

_AS_TENSOR = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.knots = nn.Parameter(torch.linspace(0, 1, 5))

    def forward(self, t):
        t = torch.as_tensor(t, dtype=torch.float32).clamp(0, 1)
        return (t.unsqueeze(-1) - self.knots).abs().argmin(-1).float()


def example_inputs():
    return (torch.rand(6),)
"""

_SYMBOLIC_MESSAGE = """
import torch
from torch import nn
from torch.export import Dim

DYNAMIC_SHAPES = ({0: Dim("n", min=2, max=64)},)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.size = 6

    def forward(self, values):
        whole = values.shape[0] == self.size
        if whole is True:
            return values * 2.0
        raise ValueError(f"expected {self.size} values, got {values.shape[0]}")


def example_inputs():
    return (torch.randn(6),)
"""

_TOLIST_PAD = """
import torch
import torch.nn.functional as F
from torch import nn


def center_crop(skip, x):
    gap = (torch.tensor(skip.shape[2:]) - torch.tensor(x.shape[2:])) // 2
    margins = torch.stack((gap, gap), -1).flip(0).flatten().neg()
    return F.pad(skip, margins.tolist())


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.BatchNorm2d(4)
        self.conv = nn.Conv2d(4, 4, 3)

    def forward(self, x):
        return torch.relu(self.conv(self.norm(x)))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x, skip):
        joined = torch.cat((center_crop(skip, x), x), 1)
        return self.block(joined)


def example_inputs():
    return (torch.randn(1, 2, 8, 8), torch.randn(1, 2, 12, 12))
"""

_WRONG_SPLIT = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, features=6):
        super().__init__()
        self.half = features // 2
        self.scale = nn.Linear(self.half, self.half)

    def forward(self, x):
        a, b = torch.split(x, [self.half, self.half], dim=1)
        return torch.cat((a, b * torch.sigmoid(self.scale(a))), 1)


def example_inputs():
    x = torch.randn(4, 5)
    return (x,)
"""

_UNFED_OPTIONAL = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.basis = nn.Parameter(torch.rand(3, 5))

    def forward(self, weights, basis=None):
        if basis is None:
            basis = self.basis
        return weights @ basis


def example_inputs():
    return (torch.rand(4, 3),)
"""

_NUMPY_OUTPUT = """
import numpy as np
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_det_per_dim = np.log(0.5)

    def forward(self, x):
        dims = x[0].numel()
        logdet = dims * self.log_det_per_dim
        return x * 0.5, logdet


def example_inputs():
    return (torch.randn(2, 3),)
"""

_NAMED_INPUT = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, xs, reverse=False):
        x = xs[0]
        return self.lin(x) if not reverse else x - self.lin.bias


def example_inputs():
    xs = [torch.randn(2, 4)]
    reverse = True
    return (xs, reverse)
"""

CASES = [
    # (name, frontend, source, category, text of a root line)
    # unet's center_crop: `torch.tensor(skip_connection.shape)`
    ("tensor_of_size", "fx", _TENSOR_OF_SIZE, "dynamic-shape", "torch.tensor(x.shape"),
    # torch-cubic-spline-grids' `torch.as_tensor(u, dtype=torch.float32)`
    ("as_tensor_input", "fx", _AS_TENSOR, "capture-limitation", "torch.as_tensor("),
    # torch-cubic-spline-grids' `is False` on a symbolic comparison, then its check
    (
        "symbolic_in_message",
        "export",
        _SYMBOLIC_MESSAGE,
        "dynamic-shape",
        "raise ValueError(",
    ),
    # unet's `F.pad(skip_connection, pad.tolist())` under export
    (
        "tolist_padding",
        "export",
        _TOLIST_PAD,
        "data-dependent-python-value",
        "margins.tolist()",
    ),
    # FrEIA's AllInOneBlock fed 5 features where it splits 3 + 3
    ("wrong_split", "export", _WRONG_SPLIT, "shape-mismatch", "x = torch.randn(4, 5)"),
    # torchnmf's `if W is None: W = self.W` with W unfed under fx
    (
        "unfed_optional_none_test",
        "fx",
        _UNFED_OPTIONAL,
        "non-tensor-argument",
        "if basis is None:",
    ),
    # FrEIA's HaarDownsampling: `jac = ndims * self.jac_fwd`, a numpy float64
    (
        "numpy_output",
        "export",
        _NUMPY_OUTPUT,
        "unsupported-io-type",
        "logdet = dims * self",
    ),
    # FrEIA's `rev=True` among the example inputs (the list before it is no error)
    ("named_input", "export", _NAMED_INPUT, "unsupported-io-type", "reverse = True"),
]


case_records, test_zoo17_mechanism_is_triaged = mechanism_tests(
    "zoo17", CASES, lambda src: textwrap.dedent(src).lstrip()
)
