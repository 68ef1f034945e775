"""The mechanisms written from zoo13's misses (docs/TRIAGE.md, "zoo13: measured once,
unseen, then development data"), in other spellings than the libraries' (torch-hd,
cliffordlayers, pypose, hypll, e2cnn), captured for real, with their root line: a
tensor subclass the exporter's FakeTensor cannot become; a parameter subclass whose
`__torch_function__` refuses what the exporter calls on it; the model's own raise on a
size it read, eager failing too; an isinstance assert that passes eagerly failing
under export; a size assert under fx; a non-tensor input built in example_inputs()."""

from __future__ import annotations

import textwrap

from triage_cases import mechanism_tests

_SUBCLASS = """
import torch
from torch import nn


class Signed(torch.Tensor):
    pass


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x).as_subclass(Signed)
        return y.sign().as_subclass(torch.Tensor)


def example_inputs():
    return (torch.randn(2, 4),)
"""

_GUARDED_PARAMETER = """
import torch
from torch import nn


class Guarded(nn.Parameter):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") in ("_is_view", "stride", "detach"):
            raise TypeError(f"{func} is not allowed on a Guarded parameter")
        return super().__torch_function__(func, types, args, kwargs or {})


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = Guarded(torch.randn(10, 4))

    def forward(self, idx):
        return self.table[idx]


def example_inputs():
    return (torch.tensor([1, 2, 3]),)
"""

CASES = [
    # (name, frontend, source, category, text of a root line)
    # torch-hd's `.as_subclass(MAPTensor)`, pypose's LieTensor
    (
        "subclass_of_fake",
        "export",
        _SUBCLASS,
        "capture-limitation",
        "as_subclass(Signed)",
    ),
    # hypll's ManifoldParameter refusing torch functions it does not list
    (
        "guarded_parameter",
        "export",
        _GUARDED_PARAMETER,
        "capture-limitation",
        "raise TypeError(",
    ),
    # cliffordlayers' `*_, I = x.shape; if I != n_blades: raise ValueError(...)`
    (
        "own_raise_on_size",
        "export",
        """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 2)

    def forward(self, x):
        *_, width = x.shape
        if width != 6:
            raise ValueError(f"got {width} features, expected 6")
        return self.fc(x)


def example_inputs():
    return (torch.randn(2, 5),)
""",
        "shape-mismatch",
        "*_, width = x.shape",
    ),
    # pypose's `assert is_lietensor(input)` on a subclass input export fakifies
    (
        "subclass_assert_export",
        "export",
        """
import torch
from torch import nn


class Quat(torch.Tensor):
    pass


def is_quat(t):
    return isinstance(t, Quat)


class Model(nn.Module):
    def forward(self, q):
        assert is_quat(q), "q should be a Quat"
        return q.as_subclass(torch.Tensor) * 2


def example_inputs():
    return (torch.randn(2, 4).as_subclass(Quat),)
""",
        "unsupported-python-construct",
        "assert is_quat(q)",
    ),
    # pypose's `assert x.size(-1) == P.size(-1) == P.size(-2)` under fx
    (
        "size_assert_fx",
        "fx",
        """
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x, cov, noise=None):
        assert x.size(-1) == cov.size(-1) == cov.size(-2), "shapes differ"
        if noise is not None:
            cov = cov + noise
        return cov @ x.unsqueeze(-1)


def example_inputs():
    return (torch.randn(2, 3), torch.eye(3).expand(2, 3, 3))
""",
        "dynamic-shape",
        "assert x.size(-1) == cov.size(-1)",
    ),
    # pypose's `dt = 0.1` handed to an LQR as a float input under export
    (
        "float_input_built",
        "export",
        """
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x, step):
        return x + step * torch.tanh(x)


def example_inputs():
    x = torch.randn(2, 3)
    step = 0.25
    return (x, step)
""",
        "unsupported-io-type",
        "step = 0.25",
    ),
]


case_records, test_zoo13_mechanism_is_triaged = mechanism_tests(
    "zoo13", CASES, lambda src: textwrap.dedent(src).lstrip()
)
