"""cuvil-debug diff's stage progress: plain lines on stderr with --progress (from the
worker process, across its channel), a live line on a terminal; stdout unchanged."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from cuvil_debug.diff.progress import PHASES, PREFIX, StageProgress

ROOT = Path(__file__).resolve().parents[2]
MLP = str(ROOT / "samples" / "models" / "mlp.py")


def _diff(*extra: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "cuvil_debug.cli", "diff", MLP, "--inject"]
    cmd += ["kernel:fc3", *extra]
    env = {**os.environ, "COLUMNS": "120"}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)


def test_progress_prints_every_stage_in_order_and_leaves_stdout_alone():
    plain, quiet = _diff("--progress"), _diff()
    assert plain.returncode == quiet.returncode == 1, plain.stderr
    assert plain.stdout == quiet.stdout  # the report, byte for byte
    assert PREFIX not in quiet.stderr  # not a terminal, no --progress: nothing
    assert "\r" not in plain.stderr  # a CI log: no carriage returns
    lines = [ln for ln in plain.stderr.splitlines() if ln.startswith(PREFIX)]
    starts = [ln[len(PREFIX) : -3] for ln in lines if ln.endswith("...")]
    assert starts == list(PHASES.values())  # every phase, in the engine's order
    done = [ln for ln in lines if " done (" in ln]
    assert len(done) == len(PHASES) and lines[-1].startswith(PREFIX + "finished in")


def test_no_isolate_progress_says_the_same_stages():
    run = _diff("--progress", "--no-isolate")
    assert run.returncode == 1, run.stderr
    starts = [ln for ln in run.stderr.splitlines() if ln.endswith("...")]
    assert [ln[len(PREFIX) : -3] for ln in starts] == list(PHASES.values())


def test_live_line_is_redrawn_in_place_under_other_output_and_erased():
    out = io.StringIO()
    progress = StageProgress("live", out)
    progress("capture")
    progress.write("the model prints\n")
    progress("done")
    text = out.getvalue()
    assert "\n" not in text.replace("the model prints\n", "")  # one line, redrawn
    assert text.index("the model prints") > text.index(PHASES["capture"])
    assert text.endswith("\r\x1b[K")  # erased: the report starts on a clean line
