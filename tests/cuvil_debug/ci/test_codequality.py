"""`triage --format codequality`: real triage output of failure samples (static
and captured) against the Code Quality schema GitLab documents."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = json.loads(
    (Path(__file__).parent / "data" / "codequality.schema.json").read_text()
)
SAMPLES = [
    "samples/failures/cl_lstm_fx.py",  # capture-limitation at line 14
    "samples/failures/ddcf_gate_threshold.py",
    "samples/models/mlp.py",  # ok: no issue
]
CLI = [sys.executable, "-m", "cuvil_debug.cli"]


def _triage(*extra: str) -> list[dict]:
    proc = subprocess.run(
        [*CLI, "triage", *SAMPLES, "--format", "codequality", *extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 1, proc.stderr  # two failures
    return json.loads(proc.stdout)


@pytest.mark.parametrize("mode", [["--static"], ["-j", "1"]], ids=["static", "capture"])
def test_codequality_report_of_real_failures_follows_gitlabs_schema(mode):
    issues = _triage(*mode)
    jsonschema.validate(issues, SCHEMA)
    assert len(issues) == 2
    assert len({i["fingerprint"] for i in issues}) == 2
    by_path = {i["location"]["path"]: i for i in issues}
    lstm = by_path["samples/failures/cl_lstm_fx.py"]
    # static predicts torch.fx's limit; a capture sees Cuvil refuse the LSTM op
    want = "capture-limitation" if mode == ["--static"] else "unsupported-op"
    assert lstm["check_name"] == want
    assert lstm["location"]["lines"]["begin"] == 14
    for issue in issues:  # a repository file, and the line exists
        lines = (ROOT / issue["location"]["path"]).read_text().splitlines()
        assert issue["location"]["lines"]["begin"] <= len(lines)


def test_a_crash_is_critical_and_a_failure_major():
    from cuvil_debug.triage.report_codequality import to_codequality

    doc = {
        "results": [
            {"model": "m/a.py", "status": "crash", "message": "SIGSEGV"},
            {"model": "m/b.py", "status": "ok"},
            {"model": "m/c.py:Net", "status": "error", "message": "no Net"},
        ]
    }
    issues = to_codequality(doc)
    jsonschema.validate(issues, SCHEMA)
    assert [(i["location"]["path"], i["severity"]) for i in issues] == [
        ("m/a.py", "critical"),
        ("m/c.py", "major"),
    ]
    assert [i["check_name"] for i in issues] == ["capture-crash", "model-load-error"]
