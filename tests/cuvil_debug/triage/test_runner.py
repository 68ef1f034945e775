"""Isolation: every model is captured in a worker; a hang or a crash is reported and
the other models are still triaged; bad specs give clear errors."""

from __future__ import annotations

from cuvil_debug.triage.runner import Job, run_jobs


def test_hang_and_crash_are_reported_and_others_still_triaged(data_dir):
    specs = ["hang_model.py", "ok_model.py", "crash_model.py", "shape_model.py"]
    # only the hang is held to 5 s: the others get a limit no loaded machine reaches
    # (a 5 s limit for every job failed a healthy capture on a busy CI machine)
    jobs = [
        Job(i, str(data_dir / s), timeout=5 if s == "hang_model.py" else None)
        for i, s in enumerate(specs)
    ]
    hang, ok, crash, shape = run_jobs(jobs, workers=2, timeout=600)
    assert hang["status"] == "timeout" and "5 s" in hang["message"]
    assert ok["status"] == "ok"
    assert crash["status"] == "crash" and "exit code 139" in crash["message"]
    assert shape["status"] == "failed"  # results come back in job order
