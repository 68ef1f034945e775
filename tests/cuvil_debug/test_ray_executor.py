"""`triage --executor ray`: on a real local Ray cluster the per-model job gives the
report the local executor gives (a hang is `timeout`, a model that kills its worker
`crash`, that model only); a model that kills the Ray worker itself is a `crash` of
that model; without Ray, or with a cluster that is not there, one line and exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cuvil_debug.triage.api import report_doc
from cuvil_debug.triage.ray_executor import run_ray
from cuvil_debug.triage.results import to_result
from cuvil_debug.triage.runner import Job, run_jobs

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "cuvil_debug" / "triage" / "data"
FAILURES = ROOT / "samples" / "failures"
MODELS = [
    DATA / "ok_model.py",
    DATA / "hang_model.py",
    DATA / "crash_model.py",
    DATA / "shape_model.py",
    FAILURES / "un_attr_typo.py",
    FAILURES / "nta_kwargs.py",
]
HANG_S = 5  # hang_model's own limit; the others get the run's (a hang guard only)
RUN_TIMEOUT = 600
KILLS_RAY_WORKER = '''"""Kills the process that started its capture worker: a Ray worker."""

import os
import signal

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        os.kill(os.getppid(), signal.SIGKILL)
        os._exit(0)


def example_inputs():
    return (torch.randn(2, 4),)
'''


def _jobs(paths: list[Path]) -> list[Job]:
    return [
        Job(i, str(p), timeout=HANG_S if p.name == "hang_model.py" else None)
        for i, p in enumerate(paths)
    ]


def _report(records: list[dict]) -> dict:
    doc = report_doc([to_result(r) for r in records], "fx")
    for r in doc["results"]:
        r.pop("duration_s")
    return doc


@pytest.mark.slow
def test_a_local_ray_cluster_gives_the_local_report(tmp_path, monkeypatch):
    killer = tmp_path / "kills_ray_worker.py"
    killer.write_text(KILLS_RAY_WORKER)
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    local = run_jobs(_jobs(MODELS), workers=2, timeout=RUN_TIMEOUT)
    on_ray = run_ray(_jobs([*MODELS, killer]), "local", 2, RUN_TIMEOUT, None)
    assert _report(on_ray[:-1]) == _report(local)
    statuses = [r["status"] for r in _report(local)["results"]]
    assert statuses == ["ok", "timeout", "crash", "failed", "failed", "failed"]
    lost = to_result(on_ray[-1])
    assert lost["status"] == "crash" and lost["model"] == str(killer)
    assert "Ray task" in lost["message"]


def _triage(*args: str, prelude: str = "") -> subprocess.CompletedProcess:
    code = (
        f"import sys\n{prelude}\nfrom cuvil_debug.cli import main\n"
        f"sys.exit(main(sys.argv[1:]))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, "triage", str(MODELS[0]), *args],
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard
        env={**os.environ, "RAY_ADDRESS": ""},
    )


def _one_error_line(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    errors = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, proc.stderr
    return errors[0]


def test_without_ray_the_error_says_how_to_install_it():
    # sys.modules[name] = None is Python's own way to make `import ray` fail
    proc = _triage("--executor", "ray", prelude="sys.modules['ray'] = None")
    assert "pip install cuvil[ray]" in _one_error_line(proc)


@pytest.mark.parametrize(
    "args, says",
    [
        (["--executor", "ray", "--address", "127.0.0.1:1"], "cannot reach the Ray"),
        (["--executor", "ray", "--address", "no-port"], "expected HOST:PORT"),
        (["--address", "local"], "--address needs --executor ray"),
        (["--executor", "ray", "--no-isolate"], "--no-isolate captures in this"),
    ],
)
def test_a_ray_mistake_is_one_line_and_exit_2(args, says):
    assert says in _one_error_line(_triage(*args))
