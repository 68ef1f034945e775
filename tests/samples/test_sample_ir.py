"""The bundled .cuvilir samples parse, verify, round-trip and run; generated ones are current."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

from cuvil.ir import parse_file, print_module, verify
from cuvil.ir.interpreter import interpret, random_params

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_IR = sorted((ROOT / "samples" / "ir").glob("*.cuvilir"))


def _without_comments(text: str) -> str:
    return "".join(
        line
        for line in text.splitlines(keepends=True)
        if not line.lstrip().startswith("//")
    )


def test_there_are_ir_samples():
    assert len(SAMPLE_IR) >= 5


@pytest.mark.parametrize("path", SAMPLE_IR, ids=lambda p: p.name)
def test_sample_ir_verifies_and_round_trips(path: Path):
    module = verify(parse_file(path))
    assert print_module(module) == _without_comments(path.read_text())


@pytest.mark.parametrize("path", SAMPLE_IR, ids=lambda p: p.name)
def test_sample_ir_runs_with_random_params(path: Path):
    module = random_params(verify(parse_file(path)))
    shapes = [
        tuple(d if isinstance(d, int) else 2 for d in a.type.shape)
        for a in module.main.args
    ]
    inputs = [
        torch.randn(s).to(a.type.dtype.torch) for s, a in zip(shapes, module.main.args)
    ]
    outputs = interpret(module, inputs)
    assert all(torch.isfinite(o).all() for o in outputs if o.dtype.is_floating_point)


@pytest.mark.parametrize("script", ["gen_sample_ir.py", "gen_ops_doc.py"])
def test_generated_files_are_current(script: str):
    """Replay check: the frontend still produces the checked-in IR; docs/OPS.md is current."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, (
        proc.stderr or f"{script} --check: regenerate and commit"
    )
