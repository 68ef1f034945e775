"""tensormeta.tensor_metadata: torch's ShapeProp metadata of a real tensor, computed on
ints (no sympy import), equal to ``_extract_tensor_metadata`` on every layout."""

from __future__ import annotations

import subprocess
import sys

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.fx.passes.shape_prop import _extract_tensor_metadata

from cuvil.frontend.tensormeta import tensor_metadata


def _same(t: torch.Tensor) -> None:
    assert tensor_metadata(t) == _extract_tensor_metadata(t), (t.shape, t.stride())


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    shape=st.lists(st.integers(0, 4), min_size=0, max_size=5),
    perm_seed=st.integers(0, 10**6),
    step=st.integers(1, 2),
)
def test_equal_to_torchs_on_drawn_layouts(shape, perm_seed, step):
    """Permuted (channels-last among them), sliced, size-0 and size-1 dims."""
    base = torch.zeros([d * step for d in shape])
    t = base[tuple(slice(None, None, step) for _ in shape)]
    perm = torch.randperm(
        len(shape), generator=torch.Generator().manual_seed(perm_seed)
    )
    _same(t)
    _same(t.permute(perm.tolist()).contiguous().permute(perm.argsort().tolist()))
    _same(t.permute(perm.tolist()))


def test_equal_to_torchs_on_fixed_layouts():
    x = torch.randn(2, 3, 4, 5)
    for t in (
        x,
        x.to(memory_format=torch.channels_last),
        torch.randn(2, 3, 4, 5, 6).to(memory_format=torch.channels_last_3d),
        torch.randn(1, 3, 1, 1).to(memory_format=torch.channels_last),
        x.transpose(0, 1),
        x[:, :, ::2],
        torch.tensor(3.0),
        torch.empty(0, 3),
        torch.randn(3, 4).expand(2, 3, 4),
        torch.nn.Parameter(torch.randn(3, 4)),
        torch.randn(3, 4, requires_grad=True),
        torch.arange(6, dtype=torch.int64).reshape(2, 3).t(),
    ):
        _same(t)


def test_other_tensors_go_to_torchs_function():
    q = torch.quantize_per_tensor(torch.randn(2, 3), 0.1, 0, torch.qint8)
    _same(q)
    _same(torch.randn(3, 3).to_sparse())


def test_the_fx_frontends_shape_run_does_not_import_sympy():
    """The reason for the module: torch's metadata imports sympy (~0.3 s). (An FX
    trace that records stack traces imports it too, through torch._dynamo: the
    diff's tracer does not.)"""
    code = (
        "import sys, torch, cuvil;"
        "from cuvil.frontend.fx import from_fx;"
        "m = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU());"
        "gm = torch.fx.symbolic_trace(m);"
        "from_fx(m, [torch.randn(1, 3, 8, 8)], gm=gm);"
        "print('sympy' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.split()[-1] == "False"
