"""The wheel holds what an installed Cuvil needs: every package of the tree and the data
files it reads (the diff report's JSON Schema), not only what an editable install sees."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"compiler": "cuvil", "cuvil_debug": "cuvil_debug"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """A wheel built from a copy of the tree (the checkout gets no build/ folder)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", *PACKAGES):
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(
                path, src / name, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy(path, src / name)
    out = tmp_path_factory.mktemp("wheel")
    cmd = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps"]
    cmd += ["--no-build-isolation", "-w", str(out), str(src)]
    subprocess.run(cmd, check=True, capture_output=True)
    (whl,) = out.glob("cuvil-*.whl")
    return zipfile.ZipFile(whl)


def test_wheel_has_every_package_of_the_tree(wheel):
    names = set(wheel.namelist())
    missing = []
    for folder, package in PACKAGES.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.relative_to(ROOT / folder).parent
            target = "/".join([package, *rel.parts, "__init__.py"])
            if target not in names:
                missing.append(target)
    assert missing == []  # a new package folder needs its line in pyproject's packages


def test_wheel_ships_the_diff_report_schema(wheel):
    schema = json.loads(wheel.read("cuvil_debug/diff/render/diff.schema.json"))
    assert schema["properties"]["schema_version"]


def test_numpy_is_a_declared_dependency():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = [
        re.split(r"[<>=!~\[; ]", d, maxsplit=1)[0] for d in project["dependencies"]
    ]
    assert "numpy" in names  # else torch warns "Failed to initialize NumPy" each run


def test_the_command_starts_without_torchs_numpy_warning():
    script = Path(sys.executable).parent / "cuvil-debug"
    cmd = (
        [str(script)] if script.exists() else [sys.executable, "-m", "cuvil_debug.cli"]
    )
    run = subprocess.run(
        [*cmd, "--version"], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0 and run.stdout.startswith("cuvil-debug ")
    assert "NumPy" not in run.stderr and "numpy" not in run.stderr.lower()
