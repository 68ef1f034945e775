"""The float64 truth computed by a forked child (cuvil_debug/diff/truth_fork.py) while
the diff lowers and walks: the same report, bit for bit, as the truth computed in the
process (clean, with a subtle fault, over trial batches); a child that fails midway
leaves the report of a diff whose twin failed; a diff that fails before its stages
leaves no child behind."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
import torch
from torch import nn

from cuvil.errors import CuvilError
from cuvil_debug import faults
from cuvil_debug.diff import truth_fork
from cuvil_debug.diff.engine import run_diff
from cuvil_debug.diff.render import report_json
from cuvil_debug.diff.trials import batches_for
from cuvil_debug.diff.truth import Twin
from cuvil_debug.loader import load_model

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "models"


@pytest.fixture(scope="module")
def cnn():
    loaded = load_model(str(SAMPLES / "small_cnn.py"))
    return loaded.model, loaded.inputs


@pytest.fixture
def forks(monkeypatch):
    """The ForkedTwins the diffs made (truth_fork.start spied on)."""
    made = []
    start = truth_fork.start

    def spy(cap):
        forked = start(cap)
        made.append(forked)
        return forked

    monkeypatch.setattr(truth_fork, "start", spy)
    return made


def _text(report) -> str:
    """The report as JSON without what differs run to run (times, the folder)."""
    doc = report_json(report)
    doc.pop("timings", None)
    doc.pop("cwd", None)
    for p in doc.get("passes", []):
        p.pop("ms", None)
    return json.dumps(doc, sort_keys=True)


def _both(monkeypatch, forks, diff) -> dict[str, str]:
    """`diff()`'s report with the truth inline and forked (checked to have forked)."""
    seen = {}
    for mode in ("inline", "fork"):
        monkeypatch.setenv(truth_fork.ENV, mode)
        forks.clear()
        seen[mode] = _text(diff())
        made = [f for f in forks if f is not None]
        assert (len(made) > 0) == (mode == "fork"), mode
        assert all(f.pid is None for f in made)  # every child reaped
    return seen


@pytest.mark.parametrize("spec", [None, "kernel:block2_relu:accumulate"])
def test_the_forked_truth_gives_the_report_of_the_truth_computed_inline(
    monkeypatch, forks, cnn, spec
):
    model, inputs = cnn

    def diff():
        with faults.inject(*([spec] if spec else [])):
            return run_diff(model, inputs)

    seen = _both(monkeypatch, forks, diff)
    assert seen["fork"] == seen["inline"]
    doc = json.loads(seen["fork"])
    assert doc["memory"]["truth"] > 0 and doc["judge"]["kind"] == "float64"
    assert (doc["first"] is None) == (spec is None)


def test_trial_batches_get_a_child_each_and_the_same_report(monkeypatch, forks, cnn):
    model, inputs = cnn
    batches = batches_for(inputs, "example inputs", 2)
    seen = _both(monkeypatch, forks, lambda: run_diff(model, inputs, batches=batches))
    assert seen["fork"] == seen["inline"]
    assert len([f for f in forks if f is not None]) == 3  # one per batch


def test_a_twin_failing_midway_in_the_child_gives_the_report_of_a_failed_twin(
    monkeypatch, forks, cnn
):
    model, inputs = cnn
    run_node = Twin.run_node

    def failing(self, n):
        if n.name == "block2_relu":  # after the child sent the nodes before it
            raise RuntimeError("no float64 kernel here")
        return run_node(self, n)

    monkeypatch.setattr(Twin, "run_node", failing)
    seen = _both(monkeypatch, forks, lambda: run_diff(model, inputs))
    assert seen["fork"] == seen["inline"]
    notes = json.loads(seen["fork"])["notes"]
    assert any(
        "no float64 twin (RuntimeError: no float64 kernel here)" in n for n in notes
    )


class _Refused(nn.Module):
    def forward(self, x):
        return torch.linalg.svd(x).S


def test_a_diff_that_fails_to_lower_leaves_no_child(monkeypatch, forks):
    monkeypatch.setenv(truth_fork.ENV, "fork")
    with pytest.raises(CuvilError):
        run_diff(_Refused(), (torch.randn(4, 4),))
    assert forks and forks[0] is not None and forks[0].pid is None


def test_the_child_is_forked_beside_tqdms_monitor_but_not_beside_other_threads(
    monkeypatch,
):
    from tqdm import tqdm

    monkeypatch.delenv(truth_fork.ENV, raising=False)
    monkeypatch.setattr(truth_fork, "spare_cpu", lambda: True)  # whatever the load
    tqdm(total=1, disable=True).close()  # torch.fx's Interpreter does it on every run
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not truth_fork.enabled()
    finally:
        stop.set()
        other.join()
    me = threading.current_thread()
    if all(t is me or truth_fork._tqdm_monitor(t) for t in threading.enumerate()):
        assert truth_fork.enabled()
    monkeypatch.setenv(truth_fork.ENV, "inline")
    assert not truth_fork.enabled()


class _AddRelu(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x, y):
        return self.relu(x + y) * 2


def test_a_span_does_not_change_the_float64_value_other_spans_start_from():
    """The stages now run opt first: a span's float64 evaluation must not depend on
    which spans were evaluated before it (an in-place ReLU after an add changed the
    add's kept value)."""
    from cuvil_debug.diff.capture import capture

    cap = capture(_AddRelu(), (torch.randn(64), torch.randn(64)))
    twin = Twin(cap.gm, cap.args, cap.eager, cap.versions, cap.stats).compute()
    add, relu = [r.name for r in cap.rows if r.op in ("call_function", "call_module")][
        :2
    ]
    kept = twin._alone[add].clone()
    assert twin.isolated(relu, frozenset({add, relu})) is not None
    assert torch.equal(twin._alone[add], kept)


def test_an_unknown_truth_mode_is_a_user_error_naming_the_variable(monkeypatch, capsys):
    from cuvil_debug.cli import main

    monkeypatch.setenv(truth_fork.ENV, "forked")
    with pytest.raises(CuvilError, match="CUVIL_DIFF_TRUTH='forked'"):
        truth_fork.enabled()
    assert main(["diff", str(SAMPLES / "mlp.py")]) == 2
    err = capsys.readouterr().err
    assert "CUVIL_DIFF_TRUTH='forked' is not a truth mode" in err
    assert "'inline'" in err and "Traceback" not in err
    monkeypatch.setenv(truth_fork.ENV, "auto")
    truth_fork.enabled()  # the default's name is accepted
