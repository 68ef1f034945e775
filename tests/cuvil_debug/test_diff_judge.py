"""The float64 judge (cuvil_debug/diff/judge.py, truth.py): values judged against a
float64 twin of the model, no further from the truth than eager-float32 allows.

The rule on its own (exact values, a one-ulp shift, a 1e-4 scale, the floor, NaN, dtypes
without a twin), the subtle faults it finds and the normwise judge misses, trials over
random batches, the lazily built members twin, and reduce / bisect with the same judge
(dynamic shapes too). Sweeps over every sample, opt level and thread count are in the
slow tier (tests/cuvil_debug/test_diff_judge_sweep.py)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from torch import nn

from cuvil_debug import faults
from cuvil_debug.diff.engine import DiffOptions, run_diff
from cuvil_debug.diff.judge import Judge, Truth, resolve, ulp_spacing
from cuvil_debug.diff.metrics import compare
from cuvil_debug.diff.model import Tolerance
from cuvil_debug.diff.oracle import Oracle
from cuvil_debug.diff.trials import batches_for, draw, load_inputs
from cuvil_debug.diff.truth import float64_outputs
from cuvil_debug.loader import load_model

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "models"
TOL = Tolerance(1e-4, 1e-5)
FAST = {"opt_level": "O1"}


def _judge(actual, eager, truth, elementwise=False):
    t = Truth.of(eager, truth)
    return compare(actual, eager, TOL, True, None, t, Judge(elementwise=elementwise))


# ---- the rule -------------------------------------------------------------------------
def test_an_exact_value_off_by_one_ulp_fails_and_is_below_the_tolerances():
    torch.manual_seed(0)
    eager = torch.randn(1000).relu()
    truth = eager.double()  # exactly representable (a ReLU): eager's error is 0
    up = torch.nextafter(eager, torch.tensor(math.inf))  # one ulp up
    m = _judge(torch.where(eager > 0, up, eager), eager, truth)
    assert not m.ok and m.judge == "float64" and m.eager.rmse == 0.0
    assert m.truth.max_ulp == pytest.approx(1.0)
    assert compare(up, eager, TOL).ok  # the tolerance rule cannot see it
    assert _judge(eager.clone(), eager, truth).ok  # the same value passes


def test_a_rounding_no_worse_than_eager_passes_and_a_scale_of_1e_4_fails():
    torch.manual_seed(1)
    a, b = torch.randn(64, 256), torch.randn(256, 32)
    truth = a.double() @ b.double()
    eager = a @ b
    other = (a.double() @ b.double()).float()  # another valid rounding: better
    assert _judge(other, eager, truth).ok and _judge(other, eager, truth, True).ok
    m = _judge(eager * 1.0001, eager, truth)
    assert not m.ok and m.excess > 10  # hundreds of times eager's error
    assert compare(eager * 1.0001, eager, TOL).ok  # normwise: within 1e-4


def test_the_floor_and_the_bound_are_in_ulps_of_the_scale():
    truth = torch.full((10,), 3.0, dtype=torch.float64)
    t = Truth.of(truth.float(), truth)
    assert t.eager.rmse == 0.0 and t.rms == 3.0
    j = Judge()
    assert j.bound(t) == pytest.approx(0.25 * 2.0**-23 * 3.0)
    assert Judge(elementwise=True).bound(t) == pytest.approx(0.25 * 2.0**-23 * 3.0)
    assert j.measure == "rmse" and Judge(elementwise=True).measure == "max_abs"


def test_new_nan_fails_and_shared_inf_is_left_out():
    truth = torch.tensor([1.0, -math.inf, 2.0], dtype=torch.float64)
    eager = truth.float()
    ok = _judge(eager.clone(), eager, truth)
    assert ok.ok and math.isfinite(ok.truth.rmse)
    bad = eager.clone()
    bad[0] = math.nan
    assert not _judge(bad, eager, truth).ok


def test_a_number_where_eager_and_the_truth_have_nan_fails():
    # fuzz 7100949: SDPA gave zeros where eager and float64 give NaN; the judge
    # left the NaN out and passed it
    truth = torch.tensor([1.0, math.nan, 2.0], dtype=torch.float64)
    eager = truth.float()
    assert _judge(eager.clone(), eager, truth).ok
    lost = torch.where(eager.isnan(), 0.0, eager)
    m = _judge(lost, eager, truth)
    assert not m.ok and m.lost_nan == 1 and m.score() == math.inf
    eager_only = eager.clone()  # eager's NaN, a finite truth: a number may be right
    assert _judge(torch.tensor([1.0, 5.0, 2.0]), eager_only, truth.nan_to_num(5.0)).ok


def test_dtypes_without_a_twin_use_the_tolerances():
    x = torch.randn(8, dtype=torch.float64)
    assert Truth.of(x, x) is None  # float64 has no float64 twin
    assert Truth.of(torch.arange(3), torch.arange(3).double()) is None
    half = torch.randn(8).half()
    t = Truth.of(half, half.double())
    assert t is not None and t.dtype == "f16"


def test_ulp_spacing_is_nextafter():
    x = torch.tensor([1.0, 1.5, 3.0, 1e-40, 0.0, 65504.0])
    step = torch.nextafter(x, torch.tensor(math.inf)) - x
    assert torch.equal(ulp_spacing(x, "f32"), step)


def test_resolve_names_the_judges():
    assert resolve("normwise") is None and resolve(None) is None
    assert resolve("float64").measure == "rmse"
    with pytest.raises(ValueError):
        resolve("exact")


# ---- the samples: clean, and the subtle faults -------------------------------------
def _sample(name):
    loaded = load_model(str(SAMPLES / f"{name}.py"))
    return loaded.model, loaded.inputs


@pytest.fixture(scope="module")
def cnn():
    return _sample("small_cnn")


@pytest.mark.parametrize(
    "spec,node,stage",
    [
        ("kernel:block1_pool:ulp", "block1_pool", "native"),  # an exact op, 1 ulp
        ("pass:block2_relu:ulp", "block2_relu", "opt"),
        ("lowering:block1_relu:scale{1.0001}", "block1_relu", "ir"),
        ("kernel:block2_relu:accumulate", "block2_relu", "native"),  # a fused kernel
    ],
)
def test_subtle_faults_found_by_the_float64_judge_missed_by_normwise(
    cnn, spec, node, stage
):
    model, inputs = cnn
    with faults.inject(spec):
        found = run_diff(model, inputs, DiffOptions())
        missed = run_diff(model, inputs, DiffOptions(judge="normwise"))
    first = found.first
    assert first is not None and (first.node, first.stage) == (node, stage), first
    assert "against float64" in first.reason
    if stage == "native":
        assert "kernel cuvil_k" in first.culprit
    elif stage == "opt":
        assert first.pass_name.startswith("inject-fault{node=block2_relu,effect=ulp")
    else:
        assert first.culprit.startswith("frontend: the lowering of"), first.culprit
    assert missed.first is None, missed.first
    assert found.judge["kind"] == "float64" and missed.judge == {"kind": "normwise"}


@pytest.fixture(scope="module")
def reports(cnn):
    """small_cnn clean (members auto and all) and with a wrong fused kernel."""
    model, inputs = cnn
    clean = run_diff(model, inputs)
    every = run_diff(model, inputs, DiffOptions(members="all"))
    with faults.inject("kernel:block2_bn"):  # the group's output (its ReLU) is wrong
        bad = run_diff(model, inputs)
    return clean, every, bad


def test_a_fused_group_gets_a_twin_only_when_its_output_is_worse(reports):
    clean, every, bad = reports
    assert clean.first is None and clean.memory["twins"] == 0
    bn = clean.row("block1_bn").stages["native"]
    assert bn.status == "fused" and bn.propagated is None and "not measured" in bn.note
    assert every.first is None and every.memory["twins"] == 1
    assert every.row("block1_bn").stages["native"].propagated.ok
    assert bad.memory["twins"] == 1  # the members of that one group recomputed
    assert bad.row("block2_bn").stages["native"].propagated is not None
    assert bad.row("block1_bn").stages["native"].propagated is None
    assert clean.memory["truth"] > 0 and not clean.notes


def test_every_format_shows_both_errors(reports):
    import json

    from rich.console import Console

    from cuvil_debug.diff.render import render_html, render_table, report_json
    from cuvil_debug.diff.render.json import report_from_json, validate_json

    _, _, bad = reports
    doc = json.loads(json.dumps(report_json(bad)))
    validate_json(doc)
    assert doc["judge"]["kind"] == "float64" and doc["judge"]["measure"] == "rmse"
    m = doc["first"]["metrics"]
    assert m["judge"] == "float64" and m["truth"]["rmse"] > m["bound"] > 0
    assert m["eager"]["max_ulp"] >= 0 and m["measure"] == "rmse"
    again = report_from_json(doc)
    assert again.first.metrics.truth == bad.first.metrics.truth
    console = Console(width=200, record=True, force_terminal=False)
    render_table(bad, console)
    text = console.export_text()
    assert "judge" in text and "against float64" in text and "introduced" in text
    cell = f"{bad.first.metrics.truth.rmse:.2g}"[:3]
    assert cell in text  # the stage's error next to eager's in the cell
    html = render_html(bad)
    assert "vs float64: RMSE" in html and "eager-float32" in html


# ---- many inputs -----------------------------------------------------------------------
class Gate(nn.Module):
    """`sub` is negative only where an input is below the threshold."""

    def __init__(self, threshold: float) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc = nn.Linear(6, 3)
        self.threshold = threshold

    def forward(self, x):
        z = x - self.threshold
        return self.fc(torch.relu(z) + 0.5 * z)


def _gate():
    """The model, its example inputs, and the one trial of eight whose smallest
    input is below the threshold (the example's never is)."""
    example = (torch.linspace(1.2, 1.8, 12).view(2, 6),)
    lows = sorted((float(b.inputs[0].min()), i) for i, b in enumerate(draw(example, 8)))
    above = min(lows[1][0], float(example[0].min()))
    assert above - lows[0][0] > 1e-3  # the drawing is seeded: a fixed gap
    return Gate((lows[0][0] + above) / 2), example, lows[0][1]


def test_trials_find_a_fault_that_fires_on_one_batch_of_eight(tmp_path):
    model, example, k = _gate()
    with faults.inject("lowering:sub:negative"):  # doubles negative entries only
        alone = run_diff(model, example)
        report = run_diff(
            model,
            example,
            batches=batches_for(example, "example inputs", 8),
            save_to=tmp_path / "batch.pt",
        )
    assert alone.first is None  # the example inputs never trigger it
    assert (report.first.node, report.first.stage) == ("sub", "ir")
    fired = [t for t in report.trials if t["diverged"]]
    assert len(report.trials) == 9 and [t["index"] for t in fired] == [k + 1]
    assert fired[0]["chosen"] and report.input_source == fired[0]["source"]
    saved = load_inputs(report.saved_inputs)
    assert torch.equal(saved[0], draw(example, 8)[k].inputs[0])


# ---- bisect and reduce with the same judge ---------------------------------------
class Rows(nn.Module):
    """Shape-polymorphic in the batch: the view uses x.shape[0]."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = torch.relu(self.fc(x))
        return torch.tanh(y.view(x.shape[0], 2, 4)).sum(-1)


def test_reduce_and_bisect_a_dynamic_model_on_another_batch_with_the_judge(tmp_path):
    from cuvil_debug.diff.bisect import bisect
    from cuvil_debug.diff.reduce import reduce_model
    from cuvil_debug.diff.repro import write_repro

    model, batch = Rows().eval(), (torch.randn(5, 8),)  # not the example's size
    options = {**FAST, "dynamic": True}
    spec = "pass:relu:scale{1.0001}"  # 1e-4: below the tolerances
    with faults.inject(spec):
        r = bisect(model, batch, options, llvm=False)
        reduced = reduce_model(model, batch, options, target_node="relu")
    assert r.verdict == "pass" and r.pass_spec.startswith("inject-fault")
    assert reduced.kind == "diverges" and reduced.nodes <= 2
    assert "vs float64" in reduced.detail and reduced.dynamic == {"dynamic": True}
    with faults.inject(spec):  # the normwise judge sees nothing to reduce
        with pytest.raises(Exception, match="nothing to reduce"):
            reduce_model(model, batch, options, target_node="relu", judge="normwise")
    write_repro(reduced, tmp_path, options=FAST, faults=[spec])
    text = (tmp_path / "repro.py").read_text()
    assert "JUDGE = {'kind': 'float64'" in text and "'dynamic': True" in text
    proc = subprocess.run(
        [sys.executable, "repro.py"], cwd=tmp_path, capture_output=True, text=True
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "REPRODUCED" in proc.stdout and "vs float64" in proc.stdout


def test_the_oracle_judges_outputs_with_their_truths():
    model, batch = Rows().eval(), (torch.randn(3, 8),)
    with torch.no_grad():
        want = [model(*batch)]
    truths = float64_outputs(model, batch, want)
    assert truths is not None and truths[0].dtype == "f32"
    oracle = Oracle(judge=Judge())
    assert oracle.compare(want, want, truths=truths).ok
    got = [want[0] * 1.0001]
    result = oracle.compare(got, want, truths=truths)
    assert not result.ok and "vs float64" in result.problem
    assert Oracle().compare(got, want).ok  # the tolerances alone: within 1e-4


def test_the_tui_inspector_shows_both_errors(reports):
    import json

    from cuvil_debug.diff.render import report_json
    from cuvil_debug.diff.status import Verdict
    from cuvil_debug.tui.diffdata import NodeVerdict, _node_rows

    doc = json.loads(json.dumps(report_json(reports[2])))
    row = next(r for r in doc["rows"] if r["name"] == doc["first"]["node"])
    stage = row["stages"][doc["first"]["stage"]]
    shown = dict(
        _node_rows(NodeVerdict(row["name"], Verdict.INTRODUCED, stage), "isolated")
    )
    assert "(eager " in shown["f64 rmse"] and "(eager " in shown["f64 max ulp"]
    assert shown["bound"].endswith("on rmse")
