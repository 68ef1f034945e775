"""``cuvil-opt`` is compiler code: it runs without importing the toolkit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DCE = Path(__file__).parent / "passes" / "filecheck" / "dce.cuvilir"

SCRIPT = """
import sys
from cuvil.opt import main
code = main([sys.argv[1], "-p", "dce"])
assert not [m for m in sys.modules if m.startswith("cuvil_debug")], "imports the toolkit"
sys.exit(code)
"""


def test_cuvil_opt_runs_a_pipeline_without_the_toolkit():
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(DCE)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert "cuvil.relu" in proc.stdout and "cuvil.add" not in proc.stdout


def test_cuvil_opt_reports_a_user_error_as_its_own():
    proc = subprocess.run(
        [sys.executable, "-m", "cuvil.opt", str(DCE), "-p", "dec"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    # -p is checked when the command line is parsed: argparse's usage, then the line
    assert "cuvil-opt: error: argument -p/--pipeline: unknown pass 'dec'" in proc.stderr
    assert "Traceback" not in proc.stderr
