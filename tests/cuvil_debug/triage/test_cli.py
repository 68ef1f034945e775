"""The `triage` subcommand wired into an argparse parser as cli.py will wire it:
formats, output files, exit codes, and --baseline."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cuvil_debug.triage.cli import EXIT_FAILURES, EXIT_OK, EXIT_USAGE, add_parser

ROOT = Path(__file__).resolve().parents[3]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cuvil-debug")
    add_parser(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.func(args)


def test_a_model_that_compiles_exits_0(data_dir, capsys):
    assert main(["triage", "--no-isolate", str(data_dir / "ok_model.py")]) == EXIT_OK
    assert "ok" in capsys.readouterr().out


def test_stage_compile_compiles_to_native_code(data_dir, capsys):
    code = main(
        [
            "triage",
            "--no-isolate",
            "--stage",
            "compile",
            "--format",
            "json",
            str(data_dir / "ok_model.py"),
        ]
    )
    doc = json.loads(capsys.readouterr().out)
    assert code == EXIT_OK and doc["stage"] == "compile"


def test_failures_exit_1_and_json_goes_to_stdout(data_dir, capsys):
    code = main(
        ["triage", "--no-isolate", "--format", "json", str(data_dir / "shape_model.py")]
    )
    assert code == EXIT_FAILURES
    doc = json.loads(capsys.readouterr().out)
    assert doc["results"][0]["category"] == "shape-mismatch"


@pytest.mark.parametrize("fmt", ["sarif", "junit", "markdown", "terminal"])
def test_every_format_writes_the_output_file(data_dir, tmp_path, fmt):
    out = tmp_path / f"report.{fmt}"
    main(
        [
            "triage",
            "--no-isolate",
            "--format",
            fmt,
            "-o",
            str(out),
            str(data_dir / "shape_model.py"),
        ]
    )
    text = out.read_text()
    if fmt == "sarif":
        assert json.loads(text)["version"] == "2.1.0"
    elif fmt == "junit":
        ET.fromstring(text)
    else:
        assert "shape-mismatch" in text


def test_baseline_fails_only_on_new_failures(data_dir, tmp_path, capsys):
    base = tmp_path / "base.json"
    shape = str(data_dir / "shape_model.py")
    main(["triage", "--no-isolate", "--format", "json", "-o", str(base), shape])
    assert main(["triage", "--no-isolate", "--baseline", str(base), shape]) == EXIT_OK
    code = main(
        [
            "triage",
            "--no-isolate",
            "--baseline",
            str(base),
            shape,
            str(data_dir / "no_model.py"),
        ]
    )
    assert code == EXIT_FAILURES
    assert "1 new failure" in capsys.readouterr().out


def test_bad_baseline_and_empty_directory_are_usage_errors(data_dir, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "other"}')
    shape = str(data_dir / "shape_model.py")
    assert main(["triage", "--no-isolate", "--baseline", str(bad), shape]) == EXIT_USAGE
    assert main(["triage", str(tmp_path)]) == EXIT_USAGE
    assert "no models found" in capsys.readouterr().err


def test_directories_expand_and_bad_files_are_reported(data_dir, tmp_path, capsys):
    (tmp_path / "notes.py").write_text("x = (\n")
    (tmp_path / "_helpers.py").write_text("")
    code = main(
        [
            "triage",
            "--no-isolate",
            "--format",
            "json",
            str(tmp_path),
        ]
    )
    results = json.loads(capsys.readouterr().out)["results"]
    assert code == EXIT_FAILURES
    assert [r["status"] for r in results] == ["error"]
    assert "not valid Python" in results[0]["message"]


def test_a_model_path_that_is_not_there_is_a_usage_error(tmp_path, capsys):
    # a typo on the command line: exit 2 before any capture, no report on stdout
    code = main(["triage", "--format", "json", str(tmp_path / "missing.py")])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert "missing.py: no such file or directory" in captured.err


def _piped_triage(*models: Path, columns: str | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = columns
    cmd = [sys.executable, "-m", "cuvil_debug.cli", "triage", "--no-isolate"]
    run = subprocess.run(
        [*cmd, *map(str, models)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )
    assert run.returncode == EXIT_FAILURES, run.stderr
    return run.stdout


def test_a_piped_table_shows_whole_paths_relative_to_the_current_directory():
    typo = ROOT / "samples" / "failures" / "un_attr_typo.py"  # given absolute
    double = Path("samples/failures/dt_buffer_double.py")  # given relative
    table = _piped_triage(typo, double).split("╭")[0]  # the summary, not the panels
    assert "…" not in table
    rows = [line for line in table.splitlines() if "failed" in line]
    assert "│ samples/failures/un_attr_typo.py " in rows[0]
    assert "samples/failures/un_attr_typo.py:14" in rows[0]
    assert "│ samples/failures/dt_buffer_double.py " in rows[1]
    assert "samples/failures/dt_buffer_double.py:10" in rows[1]


def test_a_piped_table_respects_columns():
    typo = ROOT / "samples" / "failures" / "un_attr_typo.py"
    lines = _piped_triage(typo, columns="70").splitlines()
    assert max(len(line) for line in lines) <= 70 and "…" in lines[4]
