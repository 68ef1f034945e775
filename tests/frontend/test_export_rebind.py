"""The export frontend skips torch's functionalization where rebinding is exact.

``run_decompositions`` re-traces the whole program (0.5-0.8 s of ResNet-18's capture,
issue 19) to remove in-place ops; where each in-place op writes a fresh intermediate
that no other alias reads later (an in-place ReLU after a batch norm), the walk lowers
``x.op_()`` as ``x = x.op()`` exactly, as the FX frontend does. Any other case (a
mutation read through a view, an ``out=`` argument, a model input or buffer written)
still goes through torch's functionalization or is refused, as before.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

import cuvil
from cuvil.frontend import lower


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv, self.bn = nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        y = self.relu(self.bn(self.conv(x)))
        y.add_(1).mul_(0.5)
        return F.hardtanh(y, 0.0, 2.0, inplace=True) + x.sum()


class ViewRead(nn.Module):
    def forward(self, x):
        y = x * 2
        v = y.view(-1)
        y.relu_()
        return v  # reads the mutation through a view taken before it


def _spy(monkeypatch) -> list:
    calls = []
    original = torch.export.ExportedProgram.run_decompositions

    def spy(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(torch.export.ExportedProgram, "run_decompositions", spy)
    return calls


def test_in_place_ops_on_fresh_intermediates_need_no_second_trace(monkeypatch):
    calls = _spy(monkeypatch)
    torch.manual_seed(0)
    model, x = Block().eval(), torch.randn(2, 3, 5, 5)
    compiled = cuvil.compile(model, [x], options={"frontend": "export"})
    assert calls == []
    with torch.no_grad():
        want = model(x.clone())
    torch.testing.assert_close(compiled(x), want, rtol=1e-4, atol=1e-5)


def test_a_mutation_read_through_a_view_is_still_functionalized(monkeypatch):
    calls = _spy(monkeypatch)
    x = torch.randn(3, 4)
    module = lower(ViewRead(), [x], "export")
    assert calls == [1]
    built = cuvil.compile(ViewRead(), [x], options={"frontend": "export"})
    torch.testing.assert_close(built(x), ViewRead()(x.clone()))
    assert module.main.ops
