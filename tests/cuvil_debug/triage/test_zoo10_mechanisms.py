"""The mechanisms written from zoo10's misses (docs/TRIAGE.md, "zoo10 as development
data"), in other spellings than the libraries' (pyro, opacus, brevitas, auraloss),
captured for real, with their root line: export refusing a dynamic_shapes spec whose
tree does not match a `*args` forward(); a tensor type test in a conditional
expression sending the Proxy down its non-tensor arm; a fed `*args` splatted under fx;
a size handed to code that checks for a Python int; `len()` of an Optional state a
torch op builds; a branch on `is_nested`; nn.Module.to inside forward() (export and
fx); a `.data` read export lifts as a constant; a branch on `torch.allclose` under
export."""

from __future__ import annotations

import textwrap

from triage_cases import mechanism_tests

CASES = [
    # (name, frontend, source, category, text of a root line)
    # a flat spec for a `*xs` forward (pyro's AutoNormal, opacus' GradSampleModule)
    (
        "spec_varargs",
        "export",
        """
import torch
from torch import nn
from torch.export import Dim

N = Dim("n", min=2, max=32)
DYNAMIC_SHAPES = [{0: N}, {0: N}]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 2)

    def forward(self, *xs):
        return self.fc(torch.cat(xs, dim=-1))


def example_inputs():
    return (torch.randn(4, 3), torch.randn(4, 3))
""",
        "capture-limitation",
        "DYNAMIC_SHAPES = [{0: N}, {0: N}]",
    ),
    # the type test in a conditional expression (pyro's plate: `subsample.size(0) if
    # isinstance(subsample, torch.Tensor) else len(subsample)`)
    (
        "type_test_expr",
        "fx",
        """
import torch
from torch import nn


def count(items):
    return len(items) if not torch.is_tensor(items) else items.shape[0]


class Model(nn.Module):
    def forward(self, x):
        return x * count(x)


def example_inputs():
    return (torch.randn(5, 2),)
""",
        "unsupported-python-construct",
        "return len(items) if not torch.is_tensor(items) else items.shape[0]",
    ),
    # a fed `*args` splatted on (pyro's `self._setup_prototype(*args, **kwargs)`)
    (
        "varargs_splat",
        "fx",
        """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 1)

    def pair(self, left, right):
        return self.fc(left - right)

    def forward(self, *views):
        return self.pair(*views)


def example_inputs():
    return (torch.randn(3, 4), torch.randn(3, 4))
""",
        "non-tensor-argument",
        "def forward(self, *views):",
    ),
    # a size handed to torch code that wants a Python int (opacus' `batch_size=x.shape[0]`)
    (
        "size_to_int_arg",
        "fx",
        """
import torch
from torch import nn
from torch.nn.utils._per_sample_grad import call_for_per_sample_grads


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 3)

    def forward(self, feats):
        n = feats.size(0)
        run = call_for_per_sample_grads(self.body, batch_size=feats.size(0))
        return run(feats) * n


def example_inputs():
    return (torch.randn(4, 3),)
""",
        "dynamic-shape",
        "run = call_for_per_sample_grads(self.body, batch_size=feats.size(0))",
    ),
    # len() of an Optional state a torch op builds (opacus' `[None] * len(h_0s)`)
    (
        "len_of_built_state",
        "fx",
        """
from typing import Optional

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(4, 6)

    def forward(self, seq, memory: Optional[torch.Tensor] = None):
        if memory is None:
            memory = torch.zeros(2, seq.shape[1], 6)
        h = memory[0]
        for _ in range(len(memory)):
            h = self.cell(seq[0], h)
        return h


def example_inputs():
    return (torch.randn(3, 2, 4),)
""",
        "proxy-iteration",
        "for _ in range(len(memory)):",
    ),
    # a branch on `is_nested` (brevitas' QuantMultiheadAttention)
    (
        "nested_branch",
        "fx",
        """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(4, 4)

    def forward(self, q, k):
        if q.is_nested or k.is_nested:
            q, k = q.to_padded_tensor(0.0), k.to_padded_tensor(0.0)
        return self.q(q) @ k.transpose(-1, -2)


def example_inputs():
    return (torch.randn(2, 3, 4), torch.randn(2, 5, 4))
""",
        "capture-limitation",
        "if q.is_nested or k.is_nested:",
    ),
    # nn.Module.to on a submodule inside forward(), export (auraloss' prefilter)
    (
        "module_to_export",
        "export",
        """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.smooth = nn.Conv1d(1, 1, 3, padding=1)

    def forward(self, wave):
        self.smooth.to(dtype=wave.dtype)
        return self.smooth(wave.unsqueeze(1)).squeeze(1)


def example_inputs():
    return (torch.randn(2, 16),)
""",
        "inplace-mutation",
        "self.smooth.to(dtype=wave.dtype)",
    ),
    # ... and under fx, where the device handed to it is a Proxy's metadata
    (
        "module_to_fx",
        "fx",
        """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Embedding(10, 4)

    def forward(self, ids, scale):
        table = self.table.to(scale.device)
        return table(ids) * scale


def example_inputs():
    return (torch.tensor([1, 2, 3]), torch.randn(3, 4))
""",
        "capture-limitation",
        "table = self.table.to(scale.device)",
    ),
    # a `.data` read export lifts as a constant (auraloss' `self.fir.weight.data`)
    (
        "data_read_constant",
        "export",
        """
import torch
from torch import nn
from torch.nn import functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        frozen = self.proj.weight.data.clone()
        return F.linear(x, frozen, self.proj.bias)


def example_inputs():
    return (torch.randn(2, 4),)
""",
        "capture-limitation",
        "frozen = self.proj.weight.data.clone()",
    ),
    # an assert on torch.allclose under export (brevitas' scale check)
    (
        "allclose_assert",
        "export",
        """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)

    def forward(self, x):
        u, v = self.a(x), self.b(x)
        assert not torch.allclose(u.std(), v.std(), atol=1e-3), "branches collapsed"
        return u + v


def example_inputs():
    return (torch.randn(3, 4),)
""",
        "data-dependent-control-flow",
        'assert not torch.allclose(u.std(), v.std(), atol=1e-3), "branches collapsed"',
    ),
]


case_records, test_zoo10_mechanism_is_triaged = mechanism_tests(
    "zoo10", CASES, lambda src: textwrap.dedent(src).lstrip()
)


def test_a_size_handed_to_a_call_is_a_shape_argument():
    import ast

    from cuvil_debug.triage.valuefacts import shape_arg

    def call(src):
        return ast.parse(src).body[0].value

    assert shape_arg(call("f(batch_size=x.shape[0])"))
    assert shape_arg(call("g(t, x.size(1))"))
    assert not shape_arg(call("h(x.shape[1:])"))  # a sequence: shape-seq's
    assert not shape_arg(call("k(x.size())"))
    assert not shape_arg(call("m(x, 3)"))
