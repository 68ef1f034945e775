"""`cuvil-debug diff` over many models: a result per model, exit 1 when any model is
not ok, `--shard K/N` and `report merge` (three shards merged are the unsharded
report in JSON, JUnit and SARIF), and a worker per model, so that a model that
crashes or hangs is that model's result only (slow tier).

The quick tests diff in this process (--no-isolate) on tiny models: the sweep's
logic is the same; the slow one runs the real workers."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from cuvil_debug import cli
from cuvil_debug.diff.sweep_report import render_sweep

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "cuvil_debug" / "triage" / "data"
SARIF_SCHEMA = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
TINY = """import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc1 = nn.Linear(4, {n})

    def forward(self, x):
        return torch.{act}(self.fc1(x))


def example_inputs():
    return (torch.randn(2, 4, generator=torch.Generator().manual_seed(0)),)
"""
BROKEN = (
    'class Model:\n    def __init__(self):\n        raise RuntimeError("no weights")\n'
)
EXT = {"json": "json", "junit": "xml", "sarif": "sarif"}


def _models(folder: Path) -> Path:
    """Two tiny models that compile, one that does not load, one helper file."""
    models = folder / "models"
    models.mkdir()
    (models / "relu_net.py").write_text(TINY.format(n=3, act="relu"))
    (models / "tanh_net.py").write_text(TINY.format(n=5, act="tanh"))
    (models / "broken.py").write_text(BROKEN)
    (models / "util.py").write_text("def helper():\n    return 1\n")
    return models


def _main(argv: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = cli.main(argv)
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """The unsharded sweep and its three shards, as JSON documents (in-process)."""
    folder = tmp_path_factory.mktemp("sweep")
    _models(folder)
    docs = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        for name, more in [("all", [])] + [
            (f"s{k}", ["--shard", f"{k}/3"]) for k in (1, 2, 3)
        ]:
            argv = ["diff", "models", "--no-isolate", "--format", "json"]
            code = cli.main([*argv, "-o", f"{name}.json", *more])
            docs[name] = (code, json.loads((folder / f"{name}.json").read_text()))
    return folder, docs


def _untimed(fmt: str, text: str):
    if fmt == "junit":
        return re.sub(r' time="[0-9.]+"', "", text)
    doc = json.loads(text)
    for r in doc.get("results", []):
        r.pop("duration_s", None)
    return doc


def test_a_result_per_model_and_exit_1_when_one_is_not_ok(sweep):
    _, docs = sweep
    code, doc = docs["all"]
    assert code == 1  # broken.py and util.py
    assert doc["schema"] == "cuvil-diff-sweep/1"
    got = {r["model"]: r["status"] for r in doc["results"]}
    assert got == {
        "models/broken.py": "error",
        "models/relu_net.py": "ok",
        "models/tanh_net.py": "ok",
        "models/util.py": "error",
    }
    assert doc["summary"] == {
        "total": 4,
        "ok": 2,
        "diverged": 0,
        "error": 2,
        "timeout": 0,
        "crash": 0,
    }
    by_model = {r["model"]: r for r in doc["results"]}
    assert "RuntimeError: no weights" in by_model["models/broken.py"]["message"]
    assert "defines no 'Model'" in by_model["models/util.py"]["message"]
    assert by_model["models/relu_net.py"]["outputs_ok"] == dict.fromkeys(
        ("ir", "opt", "native"), True
    )


@pytest.mark.parametrize("fmt", ["json", "junit", "sarif"])
def test_three_shards_merged_are_the_unsharded_report(fmt, sweep, capsys):
    folder, docs = sweep
    ext = EXT[fmt]
    for name, (_, doc) in docs.items():  # what `--format FMT` writes of each run
        (folder / f"{name}.{ext}").write_text(render_sweep(doc, fmt))
    assert [len(docs[f"s{k}"][1]["results"]) for k in (1, 2, 3)] == [2, 1, 1]
    out = folder / f"merged.{ext}"
    argv = ["report", "merge", str(out), "--force"]
    code, _, err = _main(
        [*argv, *(str(folder / f"s{k}.{ext}") for k in (3, 1, 2))], capsys
    )
    assert code == 0, err
    whole = (folder / f"all.{ext}").read_text()
    assert _untimed(fmt, out.read_text()) == _untimed(fmt, whole)
    if fmt == "sarif":
        jsonschema.Draft4Validator(SARIF_SCHEMA).validate(json.loads(whole))
    if fmt == "junit":
        suite = ET.fromstring(whole).find("testsuite")
        assert (suite.get("name"), suite.get("tests"), suite.get("errors")) == (
            "cuvil-diff",
            "4",
            "2",
        )


def test_a_divergence_is_exit_1_with_the_node_stage_and_line(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    _models(tmp_path)
    argv = ["diff", "models/relu_net.py", "models/tanh_net.py", "--no-isolate"]
    code, out, err = _main(
        [*argv, "--inject", "kernel:fc1", "--format", "sarif"], capsys
    )
    assert code == 1, err
    sarif = json.loads(out)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(sarif)
    results = sarif["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["divergence", "divergence"]
    where = results[0]["locations"][0]["physicalLocation"]
    assert where["artifactLocation"] == {"uri": "models/relu_net.py"}
    assert where["region"] == {"startLine": 12}  # return torch.relu(self.fc1(x))
    assert "fc1 in native" in results[0]["message"]["text"]
    assert "[1/2] models/relu_net.py: diverged: fc1 in native" in err
    code, out, _ = _main([*argv, "--format", "markdown"], capsys)
    assert code == 0
    assert "2 model(s): 2 ok, 0 diverged" in out


def test_the_sweep_form_keeps_one_models_report_apart(tmp_path, monkeypatch, capsys):
    """One model file is the single diff (its JSON report); --shard 1/1 or a
    sweep format makes even one model a sweep report."""
    monkeypatch.chdir(tmp_path)
    _models(tmp_path)
    one = ["diff", "models/relu_net.py", "--no-isolate", "--format", "json"]
    code, out, _ = _main(one, capsys)
    assert code == 0 and json.loads(out)["schema"] == "cuvil-diff"
    code, out, _ = _main([*one, "--shard", "1/1"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["schema"] == "cuvil-diff-sweep/1"
    assert doc["shard"] == {"index": 1, "count": 1, "total": 1, "positions": [0]}


def test_skip_non_models_and_an_empty_shard(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    models = _models(tmp_path)
    (models / "relu_net.py").unlink(), (models / "tanh_net.py").unlink()
    base = ["diff", "models", "--no-isolate", "--format", "json"]
    code, out, _ = _main([*base, "--skip-non-models"], capsys)
    assert code == 1  # broken.py defines Model (and fails); util.py is left out
    assert [r["model"] for r in json.loads(out)["results"]] == ["models/broken.py"]
    (models / "broken.py").unlink()
    code, out, err = _main([*base, "--skip-non-models"], capsys)
    assert code == 0, err
    assert json.loads(out)["summary"]["total"] == 0
    code, out, _ = _main([*base, "--shard", "2/2"], capsys)  # 1 model, 2 shards
    assert code == 0 and json.loads(out)["results"] == []


def test_merge_refuses_shards_of_two_different_sweeps(sweep, tmp_path, capsys):
    folder, docs = sweep
    other = json.loads(json.dumps(docs["s2"][1]))
    other["settings"]["opt_level"] = "1"
    (tmp_path / "s2.json").write_text(json.dumps(other))
    triage = {"schema": "cuvil-triage/1", "shard": docs["s2"][1]["shard"]}
    (tmp_path / "t2.json").write_text(json.dumps({**triage, "results": []}))
    for second, says in (("s2.json", "settings"), ("t2.json", "not a diff-sweep")):
        ins = [str(folder / "s1.json"), str(tmp_path / second), str(folder / "s3.json")]
        code, _, err = _main(
            ["report", "merge", str(tmp_path / "m.json"), *ins], capsys
        )
        assert code == 2 and says in err and "Traceback" not in err, err
        assert not (tmp_path / "m.json").exists()


@pytest.mark.slow  # real workers: torch starts in each
def test_a_crash_and_a_hang_are_those_models_results_only(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    models = tmp_path / "models"
    models.mkdir()
    for name in ("ok_model", "crash_model", "hang_model", "no_model"):
        shutil.copy(DATA / f"{name}.py", models / f"{name}.py")
    names = ("crash_model", "no_model", "ok_model")
    argv = ["diff", *(f"models/{n}.py" for n in names), "-j", "3"]
    code, out, err = _main([*argv, "--format", "junit", "-o", "sweep.xml"], capsys)
    assert code == 1, err
    cases = _cases(tmp_path / "sweep.xml")
    assert list(cases) == [f"models/{n}.py" for n in names]
    assert len(cases["models/ok_model.py"]) == 0, err  # passed
    crash = cases["models/crash_model.py"].find("error")
    assert crash.get("type") == "crash"
    assert "exit code 139 during the diff" in crash.get("message")
    assert cases["models/no_model.py"].find("error").get("type") == "error"
    assert out == ""
    # a model that never finishes: its timeout (whatever the load, it is one)
    argv = ["diff", "models/hang_model.py", "--timeout", "5", "--format", "junit"]
    code, out, err = _main([*argv, "-o", "hang.xml"], capsys)
    assert code == 1, err
    hang = _cases(tmp_path / "hang.xml")["models/hang_model.py"].find("error")
    assert hang.get("type") == "timeout"
    assert hang.get("message") == "the diff did not finish within 5 s"


def _cases(path: Path) -> dict:
    suite = ET.parse(path).getroot().find("testsuite")
    return {c.get("name"): c for c in suite.findall("testcase")}


def test_the_table_prints_messages_as_they_are_not_as_rich_markup():
    from cuvil_debug.diff.sweep_report import sweep_doc

    message = "no node [bold]fc1[/] in [1/2]"
    record = {"model": "m[red].py", "status": "error", "message": message}
    text = render_sweep(sweep_doc([{**record, "duration_s": 1.0}], "fx", {}), "table")
    assert "m[red].py" in text and message in text
    assert "1 model(s): 0 ok, 0 diverged, 1 error(s)" in text
