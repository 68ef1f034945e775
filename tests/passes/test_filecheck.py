"""Runs every FileCheck test under filecheck/: each `// RUN:` line, with %s the file.

`cuvil-opt` and `filecheck` come from the virtual environment this pytest runs in.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "filecheck"
BIN = Path(sys.executable).parent
FILES = sorted(HERE.glob("*.cuvilir"))


def run_lines(path: Path) -> list[str]:
    return [
        line.split("RUN:", 1)[1].strip()
        for line in path.read_text().splitlines()
        if line.startswith("// RUN:")
    ]


def test_every_pass_has_a_filecheck_test_and_a_must_not_fire_test():
    from cuvil.passes import known_passes

    for name in known_passes():
        if name.startswith("test-"):  # registered by test_pass_machinery's plugin tests
            continue
        stem = name.replace("-", "_")
        assert (HERE / f"{stem}.cuvilir").exists(), name
        assert (HERE / f"{stem}_no_fire.cuvilir").exists(), name


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_filecheck(path: Path):
    lines = run_lines(path)
    assert lines, f"{path.name} has no RUN line"
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    for line in lines:
        cmd = line.replace("%s", str(path))
        proc = subprocess.run(cmd, shell=True, capture_output=True, text=True, env=env)
        assert proc.returncode == 0, f"{cmd}\n{proc.stdout}\n{proc.stderr}"
