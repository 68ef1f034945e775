"""`cuvil-debug bench`: the JSON report against its schema, the text and Markdown forms,
and the baseline check: a kernel made to do its work twice (the ``twice`` fault) is a
regression, a rerun of the same build is not. No assertion on absolute speed."""

from __future__ import annotations

import io
import json
import re

import jsonschema
import pytest

from cuvil_debug import bench
from cuvil_debug.bench.cli import batch_sizes
from cuvil_debug.bench.progress import Progress
from cuvil_debug.cli import main

# one 1024x1024 linear at batch 128: a call is a few ms of GEMM, so doing the kernel's
# work twice is close to twice the call, far above the noise of a loaded machine
MODEL = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc = nn.Linear(1024, 1024)

    def forward(self, x):
        return self.fc(x)


def example_inputs():
    return (torch.randn(128, 1024, generator=torch.Generator().manual_seed(0)),)
"""
QUICK = ["--warmup", "2", "--rounds", "3", "--calls", "4"]
# enough calls that the median CPU time of a few-ms call is stable
STEADY = ["--warmup", "5", "--rounds", "8", "--calls", "12"]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("bench") / "linear.py"
    path.write_text(MODEL)
    return str(path)


def _run(argv, capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_bench_json_follows_its_schema_for_each_batch_size(model, tmp_path, capsys):
    out = tmp_path / "r.json"
    argv = ["bench", model, *QUICK, "--batch-sizes", "1,4", "--format", "json"]
    code, _, err = _run([*argv, "-o", str(out)], capsys)
    assert code == 0, err
    report = json.loads(out.read_text())
    jsonschema.validate(report, bench.schema())
    assert [r["batch"] for r in report["results"]] == [1, 4]
    for r in report["results"]:
        assert r["compile"]["warm_cache_hit"]  # the temporary cache served it
        for run in ("compiled", "eager"):
            t = r[run]
            assert t["calls"] == 3 * 4
            for clock in ("cpu_ms", "wall_ms"):
                assert 0 < t[clock]["p50"] <= t[clock]["p90"] <= t[clock]["p99"]
    assert report["settings"]["cpu_clock"] == "thread"
    assert report["memory"]["run_peak_mib"] > 0
    assert "bench:" not in err  # stderr is no terminal and --progress was not given
    # nothing a user gave is overwritten without --force
    code, _, err = _run([*argv, "-o", str(out)], capsys)
    assert code == 2 and "--force" in err


def test_bench_text_and_markdown_show_latency_compile_and_memory(model, capsys):
    code, text, _ = _run(["bench", model, *QUICK], capsys)
    assert code == 0
    assert "cpu p50" in text and "compile cold" in text and "memory: RSS" in text
    assert re.search(r"^128 +compiled +[0-9.]+", text, re.M)
    assert re.search(r"^128 +eager +[0-9.]+", text, re.M)
    code, md, _ = _run(["bench", model, *QUICK, "--format", "markdown"], capsys)
    assert code == 0
    assert "| batch | run | cpu p50 |" in md and "| 128 | compiled |" in md


def test_bench_baseline_flags_a_kernel_doing_twice_the_work_not_a_rerun(
    model, tmp_path, capsys
):
    first = tmp_path / "base.json"
    argv = ["bench", model, *STEADY, "--format", "json"]
    assert _run([*argv, "-o", str(first)], capsys)[0] == 0
    check = [*argv, "--baseline", str(first), "--max-regression", "40%"]

    code, out, err = _run(check, capsys)
    again = json.loads(out)["comparison"]
    assert code == 0, (err, again)
    assert not again["regressed"] and len(again["rows"]) == 1

    code, out, err = _run([*check, "--inject", "kernel:fc:twice"], capsys)
    slow = json.loads(out)
    jsonschema.validate(slow, bench.schema())
    row = slow["comparison"]["rows"][0]
    assert code == 1, (err, row)
    assert row["regressed"] and row["change"] > 0.4 and row["change_vs_eager"] > 0.4
    assert slow["options"]["inject"] == ["kernel:fc:twice"]


def test_bench_refuses_a_baseline_that_is_no_report(model, tmp_path, capsys):
    bad = tmp_path / "other.json"
    bad.write_text(json.dumps({"schema": "something-else"}))
    code, _, err = _run(["bench", model, "--baseline", str(bad)], capsys)
    assert code == 2 and "not a bench report" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) <= 2  # + hint


def test_batch_sizes_and_progress_lines():
    assert batch_sizes("1,8,8") == (1, 8)
    with pytest.raises(Exception, match="positive integers"):
        batch_sizes("1,,8")
    out = io.StringIO()  # not a terminal: plain lines only when forced
    Progress(2, out=out).step("a")
    assert out.getvalue() == ""
    forced = Progress(2, force=True, out=out)
    forced.step("compiled")
    forced.step("round 1/1")
    assert out.getvalue().splitlines() == [
        "bench: 1/2 compiled",
        "bench: 2/2 round 1/1",
    ]
