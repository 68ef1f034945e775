"""The mechanisms written from zoo19's and zoo20's misses (docs/TRIAGE.md, "zoo19 and
zoo20: measured once, unseen, then development data"), in other spellings than the
libraries' (xlstm, fastmri, pythae, diffwave, pytorch-frame, tabm), captured for real,
with their root line: a flag parameter fx traced, branched on in a submodule; a helper
called twice whose failing call the stack names (its other call passes an unfed
Optional); an object input fx iterates; numpy values dynamo traced into a torch
constructor; the one of several inputs whose size torch's eager message states.
Each fails with the triage of d17bed6."""

from __future__ import annotations

import textwrap

from triage_cases import mechanism_tests

_FLAG_BRANCH = """
import torch
from torch import nn


class Mixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(6, 6)

    def forward(
        self,
        x,
        state=None,
        keep_state=False,
    ):
        if state is not None:
            x = x + state
        y = self.lin(x)
        if keep_state:
            return y, x
        return y


def Model():
    return Mixer().eval()


def example_inputs():
    return (torch.randn(2, 6),)
"""

_PINNED_CALL = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(5, 3)

    def _check(self, name, value):
        if value is None:
            return
        if value.ndim != 2:
            raise ValueError(name + " must be a matrix")

    def forward(self, feats, extra=None):
        self._check("feats", feats)
        self._check("extra", extra)
        return self.lin(feats)


def example_inputs():
    return (torch.randn(4, 5),)
"""

_OBJECT_INPUT = """
import torch
from torch import nn


class Batch:
    def __init__(self, parts):
        self.parts = parts

    def __iter__(self):
        return iter(self.parts)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, batch):
        return sum(self.lin(p) for p in batch)


def example_inputs():
    batch = Batch([torch.randn(2, 3), torch.randn(2, 3)])
    return (batch,)
"""

_NUMPY_TABLE = """
import numpy as np
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.width = 5

    def forward(self, x):
        taps = torch.Tensor([np.exp(-((i - 2) ** 2) / 2.0) for i in range(self.width)])
        return x * taps.sum()


def example_inputs():
    return (torch.randn(2, 5),)
"""

_SIZED_INPUT = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Conv1d(1, 4, 1)
        self.up = nn.ConvTranspose1d(4, 4, 8, stride=8)

    def forward(self, signal, frames):
        h = self.inp(signal.unsqueeze(1))
        h = torch.tanh(h)
        return h + self.up(frames)


def example_inputs():
    signal = torch.randn(2, 30)
    frames = torch.randn(2, 4, 4)
    return (signal, frames)
"""

CASES = [
    # (name, frontend, source, category, text of a root line)
    # xlstm's CausalConv1d / sLSTMLayer: `if return_last_state:` under fx
    ("flag_branch", "fx", _FLAG_BRANCH, "non-tensor-argument", "if keep_state:"),
    # tabm's `_check_input(..., x=x_num)` then `(..., x=x_cat)`: the rank check of
    # the fed one fails; its unfed-Optional call site is not the one that ran
    ("pinned_call", "fx", _PINNED_CALL, "capture-limitation", "if value.ndim != 2:"),
    # pytorch-frame's TensorFrame handed to fx
    ("object_input", "fx", _OBJECT_INPUT, "unsupported-io-type", "batch = Batch("),
    # pythae's MS-SSIM Gaussian window under strict export
    ("numpy_table", "export-strict", _NUMPY_TABLE, "non-torch-call", "np.exp("),
    # diffwave fed an audio length its spectrogram does not upsample to
    ("sized_input", "export", _SIZED_INPUT, "shape-mismatch", "signal = torch."),
]


case_records, test_zoo19_mechanism_is_triaged = mechanism_tests(
    "zoo19", CASES, lambda src: textwrap.dedent(src).lstrip()
)
