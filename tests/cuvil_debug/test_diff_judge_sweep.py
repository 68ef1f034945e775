"""The float64 judge over every sample (slow tier): no false alarm at -O0 and -O3, 1 and
2 kernel threads, normwise and --elementwise; ResNet-18's subtle faults found by the
float64 judge and missed by the normwise one; and the command line's way from a batch
drawn by --trials to a repro that fails with the same judge."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from cuvil_debug import faults
from cuvil_debug.diff.engine import DiffOptions, run_diff
from cuvil_debug.loader import load_model

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ["mlp", "small_cnn", "transformer_block", "resnet18"]
SETTINGS = [
    ("O0", 1, False),
    ("O0", 2, False),
    ("O3", 1, False),
    ("O3", 2, False),
    ("O0", 1, True),  # --elementwise: the max abs error against 16x eager's
    ("O0", 2, True),
    ("O3", 1, True),
    ("O3", 2, True),
]


@cache
def sample(name: str):
    loaded = load_model(str(ROOT / "samples" / "models" / f"{name}.py"))
    return loaded.model, loaded.inputs


@pytest.mark.parametrize("level,threads,elementwise", SETTINGS)
@pytest.mark.parametrize("name", SAMPLES)
def test_clean_samples_raise_no_alarm(name, level, threads, elementwise):
    model, inputs = sample(name)
    opts = DiffOptions(opt_level=level, num_threads=threads, normwise=not elementwise)
    report = run_diff(model, inputs, opts)
    assert report.first is None, report.first
    assert all(report.outputs_ok.values()) and not report.diverged
    judged = [
        m
        for r in report.rows
        for s in r.stages.values()
        for m in (s.propagated, s.isolated)
        if m is not None and m.judge == "float64"
    ]
    assert len(judged) > 20 and not report.notes  # the twin ran: the judge judged
    assert max(m.excess for m in judged) < 1.0


@pytest.mark.parametrize(
    "spec,node,stage",
    [
        ("kernel:maxpool:ulp", "maxpool", "native"),
        ("pass:layer1_1_relu_1:ulp", "layer1_1_relu_1", "opt"),
        ("kernel:layer2_0_relu:scale{1.0001}", "layer2_0_relu", "native"),
        ("kernel:layer3_0_relu:accumulate", "layer3_0_relu", "native"),
    ],
)
def test_resnet18_subtle_faults(spec, node, stage):
    model, inputs = sample("resnet18")
    with faults.inject(spec):
        found = run_diff(model, inputs)
        missed = run_diff(model, inputs, DiffOptions(judge="normwise"))
    assert (found.first.node, found.first.stage) == (node, stage), found.first
    if stage == "native":
        assert "kernel cuvil_k" in found.first.culprit, found.first.culprit
    else:
        assert found.first.pass_name.startswith(f"inject-fault{{node={node},")
    assert missed.first is None, missed.first


GATE = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc = nn.Linear(6, 3)

    def forward(self, x):
        z = x - THRESHOLD
        return self.fc(torch.relu(z) + 0.5 * z)


def example_inputs():
    return (torch.linspace(1.2, 1.8, 12).view(2, 6),)
"""


def _threshold() -> float:
    """Between the smallest input of the one drawn batch of eight that goes lowest and
    every other batch's (test_diff_judge.py's Gate)."""
    import torch

    from cuvil_debug.diff.trials import draw

    example = (torch.linspace(1.2, 1.8, 12).view(2, 6),)
    lows = sorted(float(b.inputs[0].min()) for b in draw(example, 8))
    return (lows[0] + min(lows[1], 1.2)) / 2


def test_trials_save_the_batch_that_reduce_turns_into_a_failing_repro(tmp_path):
    threshold = _threshold()
    model = tmp_path / "gate.py"
    model.write_text(GATE.replace("THRESHOLD", repr(threshold)))
    cli = [sys.executable, "-m", "cuvil_debug.cli"]
    spec = ["--inject", "lowering:sub:negative"]
    run = subprocess.run(
        [*cli, "diff", str(model), *spec, "--trials", "8", "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1, run.stderr
    doc = json.loads(run.stdout)
    assert (
        doc["first"]["node"] == "sub" and sum(t["diverged"] for t in doc["trials"]) == 1
    )
    saved = doc["saved_inputs"]
    assert (tmp_path / saved).exists()
    out = tmp_path / "repro"
    red = subprocess.run(
        [*cli, "reduce", str(model), *spec, "--inputs", saved, "-o", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert red.returncode == 1, red.stderr  # a repro written
    proc = subprocess.run(
        [sys.executable, "repro.py"], cwd=out, capture_output=True, text=True
    )
    assert proc.returncode == 1 and "REPRODUCED" in proc.stdout, proc.stdout
    alone = subprocess.run(
        [*cli, "reduce", str(model), *spec, "-o", str(tmp_path / "none")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert alone.returncode == 2 and "nothing to reduce" in alone.stderr
