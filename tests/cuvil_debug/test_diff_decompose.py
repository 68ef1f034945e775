"""cuvil-debug diff on a model whose ops lower through PyTorch's decomposition: every
IR op of a decomposed node maps back to that one FX node, in every stage."""

from __future__ import annotations

from pathlib import Path

import pytest

from cuvil_debug.cli import main
from cuvil_debug.diff.engine import run_diff
from cuvil_debug.diff.model import STATUSES
from cuvil_debug.loader import load_model

MODEL = """
import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def forward(self, x, y):
        h = F.hardsigmoid(x)
        return torch.lerp(h, y, 0.25) + torch.logsumexp(y, 1, keepdim=True)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g)
"""
DECOMPOSED = ("hardsigmoid", "lerp", "logsumexp")


@pytest.fixture
def model_file(tmp_path: Path) -> str:
    path = tmp_path / "decomposed.py"
    path.write_text(MODEL)
    return str(path)


def test_diff_accounts_for_every_decomposed_node_in_every_stage(model_file):
    loaded = load_model(model_file)
    report = run_diff(loaded.model, loaded.inputs)
    assert report.first is None, report.first
    assert report.outputs_ok == {"ir": True, "opt": True, "native": True}
    for name in DECOMPOSED:
        row = report.row(name)
        assert set(row.stages) == {"ir", "opt", "native"}
        for stage, s in row.stages.items():
            assert s.status in STATUSES and s.status != "removed", (name, stage)
        assert row.stages["ir"].status == "value"


def test_each_ir_op_of_a_decomposed_node_names_only_that_node(model_file):
    from cuvil.frontend.fx import from_fx

    loaded = load_model(model_file)
    module = from_fx(loaded.model, loaded.inputs)
    for name in DECOMPOSED:
        ops = [op for op in module.main.ops if name in op.loc.nodes]
        assert len(ops) >= 3, name  # several ops, from one node
        assert all(op.loc.nodes == (name,) for op in ops), name
        assert len({(op.loc.file, op.loc.line) for op in ops}) == 1


def test_diff_cli_on_a_decomposed_model_exits_0(model_file, capsys):
    code = main(["diff", model_file])
    out = capsys.readouterr().out
    assert code == 0 and "no divergence" in out
    for name in DECOMPOSED:
        assert name in out
