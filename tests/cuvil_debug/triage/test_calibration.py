"""The stated confidence (classify.stated) and its knobs: they are what
benchmarks/calibrate_triage.py fits on the first-sight rows
(benchmarks/data/triage_first_sight.json), so a refit cannot go unrecorded."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from cuvil_debug.triage.classify import (
    CONF_LEVELS,
    CONF_SPLIT,
    SHRINK,
    TEMPERATURE,
    calibrated,
    stated,
)

ROOT = Path(__file__).resolve().parents[3]


def _fit_script():
    path = ROOT / "benchmarks" / "calibrate_triage.py"
    spec = importlib.util.spec_from_file_location("calibrate_triage", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_knobs_in_use_are_what_the_fit_script_gives():
    fit = _fit_script()
    levels, softmax = fit.fit_in_use(json.loads(fit.FIRST_SIGHT.read_text()))
    assert levels == ("levels", CONF_SPLIT, CONF_LEVELS)
    assert softmax == (TEMPERATURE, SHRINK)


def test_the_answer_states_its_level_and_the_rest_share_the_remainder():
    scores = {"dynamic-shape": 5.0, "proxy-iteration": 3.0, "unsupported-op": 0.0}
    probs = stated(scores, "dynamic-shape")
    assert probs["dynamic-shape"] == CONF_LEVELS[1]
    assert abs(sum(probs.values()) - 1.0) < 1e-9
    assert probs["proxy-iteration"] > probs["unsupported-op"] > 0
    weak = stated({"dynamic-shape": 1.5, "unsupported-op": 0.0}, "dynamic-shape", 2.0)
    assert weak["dynamic-shape"] == CONF_LEVELS[0]
    nothing = {"dynamic-shape": 0.5, "unsupported-op": 0.0}  # no answer: the softmax
    assert stated(nothing) == calibrated(nothing)
