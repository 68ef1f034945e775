"""Code generation honours `inplace` hints only where legal, and results stay exact."""

from __future__ import annotations

import torch
from torch import nn

import cuvil

NO_FUSION = "dce,cse,fold-constants,dce"


class Chain(nn.Module):
    def forward(self, x, y):
        a = torch.exp(x)  # a dies at b: b may reuse it
        b = torch.relu(a)
        c = b + b  # read twice: no reuse
        d = torch.sigmoid(c) * y  # y is a model input: never overwritten
        return d, c.view(-1)  # c is returned through a reshape: no reuse of c


def _compile(pipeline: str):
    x, y = torch.randn(64, 64), torch.randn(64, 64)
    compiled = cuvil.compile(Chain(), [x, y], options={"pipeline": pipeline})
    return compiled, x, y


def test_hinted_code_matches_eager_and_leaves_inputs_alone():
    compiled, x, y = _compile(NO_FUSION + ",memory-hints")
    x0, y0 = x.clone(), y.clone()
    got = compiled(x, y)
    want = Chain()(x, y)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)
    assert torch.equal(x, x0) and torch.equal(y, y0)


def test_hints_shrink_the_arena():
    with_hints, _, _ = _compile(NO_FUSION + ",memory-hints")
    without, _, _ = _compile(NO_FUSION)
    assert with_hints.program.arena_bytes < without.program.arena_bytes
