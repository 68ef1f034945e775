"""`cuvil-debug doctor`: the real checks on this machine, and FAILs made real by the
environment (a cache folder that cannot be, a PATH without the tools, a hanging gdb,
installed metadata whose requirements are not met)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import llvmlite
import llvmlite.binding as llvm
import torch

import cuvil
from cuvil_debug.doctor.command import CHECKS, SCHEMA
from cuvil_debug.doctor.core import STATUSES

HANG_GUARD = 300  # seconds: a hang guard only, no test depends on speed


def _doctor(
    *args: str, env: dict | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cuvil_debug.cli", "doctor", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        cwd=cwd,
        env={**os.environ, **(env or {})},
    )


def _json(
    *args: str, env: dict | None = None, cwd: Path | None = None
) -> tuple[int, dict]:
    proc = _doctor("--format", "json", *args, env=env, cwd=cwd)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def _by_id(doc: dict) -> dict:
    return {c["id"]: c for c in doc["checks"]}


def test_doctor_json_has_every_check_and_this_machines_versions():
    code, doc = _json()
    assert doc["schema"] == SCHEMA
    assert [c["id"] for c in doc["checks"]] == [cid for cid, _, _ in CHECKS]
    checks = _by_id(doc)
    for c in doc["checks"]:
        assert c["status"] in STATUSES
        assert c["summary"]
        assert (c["status"] == "OK") == (c["advice"] == ""), c
    assert checks["python"]["details"]["version"] == platform.python_version()
    assert checks["torch"]["details"]["version"] == torch.__version__
    assert checks["llvmlite"]["details"]["version"] == llvmlite.__version__
    llvm_version = ".".join(map(str, llvm.llvm_version_info))
    assert checks["llvmlite"]["details"]["llvm_version"] == llvm_version
    assert checks["cuvil"]["details"]["version"] == cuvil.__version__
    assert checks["cpu"]["details"]["cpu"] == llvm.get_host_cpu_name()
    failed = doc["summary"]["FAIL"]
    assert failed == sum(c["status"] == "FAIL" for c in doc["checks"])
    assert code == (1 if failed else 0)


def test_terminal_report_is_one_line_per_check_with_its_status():
    proc = _doctor()
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr
    for _, title, _ in CHECKS:
        assert any(title in line for line in proc.stdout.splitlines()), title
    assert "failure(s)" in proc.stdout.splitlines()[-1]


def test_a_cache_folder_that_cannot_be_made_fails_with_what_to_do(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    code, doc = _json(env={"CUVIL_CACHE_DIR": str(blocker / "cache")})
    cache = _by_id(doc)["cache"]
    assert code == 1 and doc["status"] == "FAIL"
    assert cache["status"] == "FAIL" and str(blocker / "cache") in cache["summary"]
    assert "CUVIL_CACHE_DIR" in cache["advice"]
    text = _doctor(env={"CUVIL_CACHE_DIR": str(blocker / "cache")})
    assert text.returncode == 1 and "-> point CUVIL_CACHE_DIR" in " ".join(
        text.stdout.split()
    )


def test_a_path_without_the_tools_warns_for_debuggers_and_fails_for_cc(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    code, doc = _json(env={"PATH": str(empty), "CC": "cc"})
    checks = _by_id(doc)
    assert code == 1
    assert checks["gdb"]["status"] == "WARN"
    assert "apt-get install gdb" in checks["gdb"]["advice"]
    assert checks["lldb"]["status"] == "WARN"
    assert "python3-lldb-22" in checks["lldb"]["advice"]
    assert checks["graphviz"]["status"] == "WARN"
    assert checks["cc"]["status"] == "FAIL"
    assert "install gcc or clang, or set $CC" in checks["cc"]["advice"]


def test_a_hanging_gdb_is_a_fail_within_the_timeout_not_a_hang(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gdb = bin_dir / "gdb"
    # a child that keeps the output pipe open too, as a stuck debugger's helper would
    gdb.write_text("#!/bin/sh\nsleep 600 &\nsleep 600\n")
    gdb.chmod(0o755)
    path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    code, doc = _json("--timeout", "2", env={"PATH": path})
    check = _by_id(doc)["gdb"]
    assert code == 1
    assert check["status"] == "FAIL" and "did not answer within 2 s" in check["summary"]
    assert check["details"]["timed_out"] is True


def _dist(root: Path, name: str, version: str, requires: list[str]) -> None:
    info = root / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    (info / "METADATA").write_text("\n".join(lines) + "\n")


def test_an_unmet_requirement_outside_cuvil_is_a_warning(tmp_path):
    _dist(tmp_path, "demo_plugin", "1.0", ["torch<2", "no-such-dist-xyz>=1"])
    # run outside the checkout: its cuvil.egg-info (first on sys.path) would win
    code, doc = _json(env={"PYTHONPATH": str(tmp_path)}, cwd=tmp_path)
    check = _by_id(doc)["packages"]
    mine = [c for c in check["details"]["conflicts"] if c["package"] == "demo_plugin"]
    assert {(c["requires"], c["installed"]) for c in mine} == {
        ("torch<2", torch.__version__),
        ("no-such-dist-xyz>=1", None),
    }
    assert not any(c["matters_to_cuvil"] for c in mine)
    assert check["status"] in ("WARN", "FAIL")  # FAIL only if this venv is broken


def test_an_unmet_requirement_of_cuvil_itself_fails(tmp_path):
    # metadata earlier on sys.path wins, as for import: this `cuvil` asks for torch 1.0
    _dist(tmp_path, "cuvil", cuvil.__version__, ["torch==1.0"])
    # run outside the checkout: its cuvil.egg-info (first on sys.path) would win
    code, doc = _json(env={"PYTHONPATH": str(tmp_path)}, cwd=tmp_path)
    check = _by_id(doc)["packages"]
    assert code == 1 and check["status"] == "FAIL"
    assert "torch==1.0" in check["summary"]
    assert any(c["matters_to_cuvil"] for c in check["details"]["conflicts"])
