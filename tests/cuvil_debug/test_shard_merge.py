"""`triage --shard K/N` and `report merge`: three shards of a folder of failure samples,
merged, are the unsharded report (timing fields aside) in JSON, SARIF and JUnit; the
shards are a deterministic partition; a merge of the wrong files is a one-line error."""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import pytest

from cuvil_debug import cli
from cuvil_debug.triage.shard import Shard, select

ROOT = Path(__file__).resolve().parents[2]
FAILURES = ROOT / "samples" / "failures"
# small, fast captures of several categories, and one model that compiles
SAMPLES = [
    FAILURES / f"{name}.py"
    for name in (
        "un_attr_typo",
        "un_missing_import",
        "nta_kwargs",
        "ntc_math_exp",
        "iter_len_tensor",
        "dt_half_mask",
        "sm_linear_init",
        "cl_fx_device_branch",
    )
] + [ROOT / "samples" / "models" / "mlp.py"]
EXTENSION = {"json": "json", "sarif": "sarif", "junit": "xml"}


@pytest.fixture
def sweep(tmp_path, monkeypatch):
    models = tmp_path / "models"
    models.mkdir()
    for path in SAMPLES:
        shutil.copy(path, models / path.name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _main(argv: list[str], capsys) -> tuple[int, str]:
    try:
        code = cli.main(argv)
    except SystemExit as e:
        code = e.code
    return code, capsys.readouterr().err


def _triage(fmt: str, out: str, capsys, *more: str) -> None:
    argv = ["triage", "models", "--no-isolate", "--format", fmt, "-o", out, *more]
    code, err = _main(argv, capsys)
    assert code == 1, err  # the failure samples fail


def _untimed(fmt: str, text: str):
    if fmt == "junit":
        return re.sub(r' time="[0-9.]+"', "", text)
    doc = json.loads(text)
    for r in doc.get("results", []):
        r.pop("duration_s", None)
    return doc


@pytest.mark.parametrize("fmt", ["json", "sarif", "junit"])
def test_three_shards_merged_are_the_unsharded_report(fmt, sweep, capsys):
    ext = EXTENSION[fmt]
    _triage(fmt, f"all.{ext}", capsys)
    for k in (1, 2, 3):
        _triage(fmt, f"shard{k}.{ext}", capsys, "--shard", f"{k}/3")
    shards = [f"shard{k}.{ext}" for k in (2, 3, 1)]  # any order
    code, err = _main(["report", "merge", f"merged.{ext}", *shards], capsys)
    assert code == 0, err
    whole = (sweep / f"all.{ext}").read_text()
    merged = (sweep / f"merged.{ext}").read_text()
    assert _untimed(fmt, merged) == _untimed(fmt, whole)
    sizes = [
        _shard_size(fmt, (sweep / f"shard{k}.{ext}").read_text()) for k in (1, 2, 3)
    ]
    assert sizes == [3, 3, 3] or fmt == "sarif"  # SARIF lists the failures only


def _shard_size(fmt: str, text: str) -> int:
    if fmt == "junit":
        return text.count("<testcase ")
    doc = json.loads(text)
    return len(doc["results"]) if fmt == "json" else len(doc["runs"][0]["results"])


def test_a_model_lands_in_the_same_shard_whatever_the_order_given():
    specs = [f"models/m{i:02d}.py" for i in range(10)]
    shuffled = specs[:]
    random.Random(7).shuffle(shuffled)
    for k in (1, 2, 3):
        shard = Shard(k, 3)
        mine = {specs[i] for i in select(specs, shard)}
        assert mine == {shuffled[i] for i in select(shuffled, shard)}
    parts = [set(select(specs, Shard(k, 3))) for k in (1, 2, 3)]
    assert set().union(*parts) == set(range(10)) and sum(map(len, parts)) == 10
    assert sorted(map(len, parts)) == [3, 3, 4]
    assert select(specs, Shard(1, 1)) == list(range(10))


def test_more_shards_than_models_gives_an_empty_report_not_an_error(sweep, capsys):
    code, err = _main(
        ["triage", "models/mlp.py", "--no-isolate", "--format", "json"]
        + ["--shard", "2/2", "-o", "empty.json"],
        capsys,
    )
    assert code == 0, err
    doc = json.loads((sweep / "empty.json").read_text())
    assert doc["results"] == [] and doc["shard"]["total"] == 1


def _two_shards(sweep, capsys) -> None:
    for k in (1, 2):
        _main(
            ["triage", "models/mlp.py", "models/nta_kwargs.py", "--no-isolate"]
            + ["--format", "json", "--shard", f"{k}/2", "-o", f"s{k}.json"],
            capsys,
        )


@pytest.mark.parametrize(
    "inputs, says",
    [
        (["s1.json"], "shard 2/2 is missing"),
        (["s1.json", "s1.json", "s2.json"], "given twice"),
        (["s1.json", "plain.json"], "not a shard's report"),
        (["s1.json", "s2.xml"], "not JSON"),
    ],
)
def test_merging_the_wrong_files_is_one_line_and_exit_2(inputs, says, sweep, capsys):
    _two_shards(sweep, capsys)
    (sweep / "plain.json").write_text(
        json.dumps({"schema": "cuvil-triage/1", "results": []})
    )
    (sweep / "s2.xml").write_text("<testsuites/>\n")
    code, err = _main(["report", "merge", "out.json", *inputs], capsys)
    assert code == 2 and says in err and "Traceback" not in err, err
    assert len([line for line in err.splitlines() if "error:" in line]) == 1
    assert not (sweep / "out.json").exists()


def test_merge_never_overwrites_a_file_without_force(sweep, capsys):
    _two_shards(sweep, capsys)
    (sweep / "out.json").write_text("mine\n")
    code, err = _main(["report", "merge", "out.json", "s1.json", "s2.json"], capsys)
    assert code == 2 and "--force" in err
    assert (sweep / "out.json").read_text() == "mine\n"
    argv = ["report", "merge", "out.json", "s1.json", "s2.json", "--force"]
    assert _main(argv, capsys)[0] == 0
    assert json.loads((sweep / "out.json").read_text())["summary"]["total"] == 2


def test_an_unknown_extension_asks_for_format(sweep, capsys):
    _two_shards(sweep, capsys)
    code, err = _main(["report", "merge", "out.txt", "s1.json", "s2.json"], capsys)
    assert code == 2 and "--format" in err
    argv = ["report", "merge", "out.txt", "s1.json", "s2.json", "--format", "json"]
    assert _main(argv, capsys)[0] == 0
