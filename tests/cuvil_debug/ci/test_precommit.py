"""The pre-commit hooks with real pre-commit: `pre-commit try-repo` of this checkout
on a scratch git repository, passing on good files and failing with the located
error (file:line) on bad ones."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
IR = ROOT / "samples" / "ir" / "mlp.cuvilir"
GOOD_MODEL = ROOT / "samples" / "models" / "mlp.py"
BAD_MODEL = ROOT / "samples" / "failures" / "cl_lstm_fx.py"  # fx: an LSTM, line 14
BIN = Path(sys.executable).parent  # cuvil-debug for the -system hooks

pytestmark = pytest.mark.skipif(
    not (ROOT / ".git").exists(), reason="try-repo needs this checkout to be git"
)


def _broken_ir() -> str:
    """mlp.cuvilir with fc1's weight declared one column short: used at 13:29."""
    text = IR.read_text()
    bad = text.replace("() -> tensor<512x784xf32>", "() -> tensor<512x783xf32>", 1)
    assert bad != text
    return bad


@pytest.fixture
def scratch(tmp_path):
    repo = tmp_path / "scratch"
    repo.mkdir()
    shutil.copy(IR, repo / "good.cuvilir")
    (repo / "broken.cuvilir").write_text(_broken_ir())
    shutil.copy(GOOD_MODEL, repo / "model.py")
    shutil.copy(BAD_MODEL, repo / "lstm.py")
    (repo / "util.py").write_text("def helper():\n    return 1\n")  # no Model
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    return repo


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def _try_repo(repo: Path, hook: str | None, files: list[str], home: Path):
    env = dict(os.environ, PRE_COMMIT_HOME=str(home))
    env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"
    cmd = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT)]
    cmd += [hook] if hook else []
    proc = subprocess.run(
        [*cmd, "--files", *files],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,  # a hang guard: a language: python env installs torch
    )
    return proc.returncode, proc.stdout + proc.stderr


def test_hooks_file_follows_pre_commits_manifest_schema():
    from pre_commit.clientlib import load_manifest

    hooks = {h["id"]: h for h in load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))}
    assert set(hooks) == {
        "cuvil-validate",
        "cuvil-validate-system",
        "cuvil-triage",
        "cuvil-triage-system",
    }
    assert all("--static" in h["entry"] for i, h in hooks.items() if "triage" in i)
    raw = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    # `system` (pre-commit 4.4 calls it `unsupported`, and still reads `system`)
    for hook in raw:
        want = "system" if hook["id"].endswith("-system") else "python"
        assert hook["language"] == want
    assert {h["files"] for h in raw if "validate" in h["id"]} == {r"\.cuvilir$"}


def test_validate_hook_passes_good_ir(scratch, tmp_path):
    code, out = _try_repo(
        scratch, "cuvil-validate-system", ["good.cuvilir"], tmp_path / "h"
    )
    assert code == 0, out
    assert "Passed" in out


def test_validate_hook_fails_on_broken_ir_with_file_line_col(scratch, tmp_path):
    files = ["good.cuvilir", "broken.cuvilir"]
    code, out = _try_repo(scratch, "cuvil-validate-system", files, tmp_path / "h")
    assert code == 1, out
    assert "Failed" in out
    assert "broken.cuvilir:13:29: error: %fc1_weight has type" in out
    assert "good.cuvilir:" not in out  # --quiet: only the errors


def test_triage_hook_passes_a_good_model_and_skips_other_python(scratch, tmp_path):
    code, out = _try_repo(
        scratch, "cuvil-triage-system", ["model.py", "util.py"], tmp_path / "h"
    )
    assert code == 0, out


def test_triage_hook_fails_with_the_root_cause_line_and_runs_no_code(scratch, tmp_path):
    marker = tmp_path / "ran"
    lstm = scratch / "lstm.py"
    lstm.write_text(
        f"open({str(marker)!r}, 'w').close()  # proves the file ran\n"
        + lstm.read_text()
    )
    code, out = _try_repo(
        scratch, "cuvil-triage-system", ["lstm.py", "util.py"], tmp_path / "h"
    )
    assert code == 1, out
    assert "lstm.py:15" in out  # the LSTM call, one line down after the marker line
    assert "capture-limitation" in out
    assert not marker.exists(), "the static hook executed the model file"


@pytest.mark.slow
def test_python_language_hooks_install_cuvil_and_report_located_errors(
    scratch, tmp_path
):
    """`language: python`: pre-commit pip-installs this checkout (torch too) into
    its own environment (minutes), then both hooks run from it."""
    files = ["good.cuvilir", "broken.cuvilir", "model.py", "lstm.py", "util.py"]
    # every hook of the manifest; pre-commit puts its env's bin first on PATH
    code, out = _try_repo(scratch, None, files, tmp_path / "h")
    assert code == 1, out
    assert "broken.cuvilir:13:29: error" in out
    assert "lstm.py:14" in out
    sections = out.split("cuvil ")
    python_hooks = [s for s in sections if "installed cuvil-debug" not in s]
    assert any("validate" in s and "Failed" in s for s in python_hooks), out
    assert any("triage" in s and "Failed" in s for s in python_hooks), out
