"""The mechanisms written from zoo12's misses (docs/TRIAGE.md, "zoo12: measured once,
unseen, then development data"), in other spellings than the libraries' (torch-kmeans,
diffsort, mpc, torchkbnufft, torchsr), captured for real, with their root line: an
eager `assert` on the input's rank; a wrong input dtype eager refuses; the path an
unfed Optional chose under fx; a namedtuple input under fx; a dynamic_shapes spec for
a container input; and a dynamic model captured as cuvil.compile does (it compiles,
where lowering torch.export's symbolic graph did not)."""

from __future__ import annotations

import textwrap

from triage_cases import mechanism_tests

CASES = [
    # (name, frontend, source, category, text of a root line)
    # diffsort's `assert len(vectors.shape) == 2`, fed a 3-D batch: eager fails too
    (
        "eager_rank_assert",
        "export",
        """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        assert x.dim() == 2, "expects (batch, features)"
        return self.fc(x)


def example_inputs():
    return (torch.randn(2, 3, 4),)
""",
        "shape-mismatch",
        "assert x.dim() == 2",
    ),
    # a float64 input into float32 layers (mpc's NNDynamics): eager says "mat1 and
    # mat2 must have the same dtype", which is no shape message
    (
        "eager_dtype_linear",
        "export",
        """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return torch.tanh(self.fc(x))


def example_inputs():
    return (torch.randn(3, 4, dtype=torch.float64),)
""",
        "dtype-mismatch",
        "return torch.tanh(self.fc(x))",
    ),
    # torchkbnufft's `if smaps is not None:` with `smaps` unfed: fx makes it a Proxy,
    # the branch runs, and its metadata test fails
    (
        "unfed_optional_path",
        "fx",
        """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, weight=None):
        if weight is not None:
            if weight.dtype != x.dtype:
                weight = weight.to(x.dtype)
            x = x * weight
        return self.fc(x)


def example_inputs():
    return (torch.randn(2, 4),)
""",
        "non-tensor-argument",
        "if weight is not None:",
    ),
    # mpc's QuadCost: a namedtuple of tensors is one Proxy under fx
    (
        "namedtuple_input_fx",
        "fx",
        """
from collections import namedtuple

import torch
from torch import nn

Affine = namedtuple("Affine", "scale shift")


class Model(nn.Module):
    def forward(self, x, affine):
        assert isinstance(affine, Affine), "pass an Affine"
        return x * affine.scale + affine.shift


def example_inputs():
    return (torch.randn(2, 4), Affine(torch.ones(4), torch.zeros(4)))
""",
        "non-tensor-argument",
        "assert isinstance(affine, Affine)",
    ),
    # cuvil.compile's dynamic_shapes names dims of tensor inputs only
    (
        "spec_for_a_tuple",
        "export",
        """
import torch
from torch import nn
from torch.export import Dim

B = Dim("batch", min=1, max=32)
DYNAMIC_SHAPES = ({0: B}, ({0: B}, {0: B}))


class Model(nn.Module):
    def forward(self, x, pair):
        return x * pair[0] + pair[1]


def example_inputs():
    return (torch.randn(2, 4), (torch.randn(2, 4), torch.randn(2, 4)))
""",
        "unsupported-io-type",
        "def forward(self, x, pair):",  # the parameter given a spec of its own
    ),
]


case_records, test_zoo12_mechanism_is_triaged = mechanism_tests(
    "zoo12", CASES, lambda src: textwrap.dedent(src).lstrip()
)


def test_a_dynamic_model_is_captured_as_cuvil_compile_does(tmp_path):
    """`x.repeat` by a dynamic size: lowering torch.export's symbolic graph failed;
    cuvil.compile proves the dim with torch.export, then lowers the shape static."""
    from cuvil_debug.triage.collect import collect

    model = tmp_path / "repeat_dynamic.py"
    model.write_text(
        textwrap.dedent(
            """
            import torch
            from torch import nn
            from torch.export import Dim

            DYNAMIC_SHAPES = ({1: Dim("seq", min=2, max=64)},)


            class Model(nn.Module):
                def forward(self, x):
                    return x + x.mean(1, keepdim=True).repeat(1, x.shape[1], 1)


            def example_inputs():
                return (torch.randn(2, 5, 8),)
            """
        )
    )
    record = collect(str(model), "export")
    assert record["status"] == "ok", record.get("error")


def test_a_type_listing_is_not_the_message():
    from cuvil_debug.triage.evidence import message_head

    message = (
        "It looks like one of the inputs with type `<class 'm.Dyn'>` is not supported.\n"
        "Supported: [<class 'torch.Tensor'>, <class 'torch.dtype'>, <class 'int'>].\n"
    )
    assert message_head(message) == message.splitlines()[0]
