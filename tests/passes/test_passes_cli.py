"""`cuvil-debug passes MODEL`, `cuvil-debug opt FILE` and the `cuvil-opt` script."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cuvil_debug.cli import main

ROOT = Path(__file__).resolve().parents[2]
MLP = str(ROOT / "samples" / "models" / "small_cnn.py")
FILECHECK = Path(__file__).parent / "filecheck"


def test_passes_prints_the_pass_table_and_diffs(capsys):
    assert main(["passes", MLP, "--print-after-change"]) == 0
    out = capsys.readouterr().out
    assert "pipeline: dce,cse,fold-constants,fold-bn,layout-nhwc,fuse-epilogue" in out
    assert "fold-bn           yes" in out and "--- before fold-bn" in out
    assert "+    %" in out and "cuvil.fused" in out


def test_passes_bisect_limit_says_which_action_was_last(capsys):
    assert main(["passes", MLP, "--bisect-limit", "1", "-O", "2"]) == 0
    err = capsys.readouterr().err
    assert "bisect-limit 1: applied 1 of" in err and "last applied: #1 fold-bn" in err


def test_unknown_pass_is_one_line_and_exit_2(capsys):
    # checked while the command line is parsed, before the file is read
    with pytest.raises(SystemExit) as exit_:
        main(["opt", str(FILECHECK / "dce.cuvilir"), "-p", "dec"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "unknown pass 'dec'" in err and "did you mean 'dce'" in err
    assert "Traceback" not in err


def test_cuvil_opt_script_runs_a_pipeline_on_a_file():
    exe = Path(sys.executable).parent / "cuvil-opt"
    proc = subprocess.run(
        [str(exe), str(FILECHECK / "dce.cuvilir"), "-p", "dce"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "cuvil.relu" in proc.stdout and "cuvil.add" not in proc.stdout


def test_opt_on_a_missing_file_is_a_user_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["opt", "no/such/file.cuvilir", "-p", "dce"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "'no/such/file.cuvilir' does not exist" in err
    assert "Traceback" not in err


def test_negative_bisect_limit_is_refused(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["passes", MLP, "--bisect-limit", "-3"])
    assert exit_.value.code == 2
    assert "expected a count >= 0" in capsys.readouterr().err
