"""The diff/bisect/reduce command lines: exit codes, formats, files, CI thresholds."""

from __future__ import annotations

import html
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from cuvil_debug.cli import main
from cuvil_debug.diff.render import validate_json

ROOT = Path(__file__).resolve().parents[2]
MLP = str(ROOT / "samples" / "models" / "mlp.py")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as e:  # a mistake argparse catches (--threads 0)
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_clean_diff_exits_0_with_a_table(capsys):
    code, out, err = run(capsys, "diff", MLP)
    assert code == 0, err
    assert "no divergence" in out
    for node in ("fc1", "relu", "fc2", "fc3"):
        assert node in out


def test_injected_bug_exits_1_and_names_node_stage_and_kernel(capsys):
    code, out, _ = run(capsys, "diff", MLP, "--inject", "kernel:fc3")
    assert code == 1
    assert "fc3" in out and "native" in out and "cuvil_k" in out


def test_json_html_and_dot_files(capsys, tmp_path):
    j, h, d = tmp_path / "d.json", tmp_path / "d.html", tmp_path / "g.dot"
    args = ["diff", MLP, "--inject", "pass:relu"]
    code, _, err = run(capsys, *args, "--format", "json", "-o", str(j), "--dot", str(d))
    assert code == 1, err
    doc = json.loads(j.read_text())
    validate_json(doc)
    assert doc["schema_version"] == 1 and doc["first"]["node"] == "relu"
    assert doc["first"]["stage"] == "opt"
    assert doc["first"]["pass_name"].startswith("inject-fault")
    assert d.read_text().startswith("digraph")
    code, _, _ = run(capsys, *args, "--format", "html", "-o", str(h))
    page = h.read_text()
    assert code == 1 and "<svg" in page and "relu" in page and "https://" not in page


def test_existing_output_is_never_overwritten(capsys, tmp_path):
    target = tmp_path / "report.json"
    target.write_text("mine")
    code, _, err = run(capsys, "diff", MLP, "--format", "json", "-o", str(target))
    assert code == 2 and "--force" in err and "Traceback" not in err
    assert target.read_text() == "mine"


@pytest.mark.parametrize(
    "fail_on,fault,expected",
    [
        (["never"], "kernel:fc3", 0),
        (["output"], "pass:fc1:negative", 0),  # damped: the output is still right
        (["divergence"], "pass:fc1:negative", 1),
        (["max_abs>1e9"], "kernel:fc3", 0),
        (["max_abs>1e-3"], "kernel:fc3", 1),
        (["cosine<0.5"], None, 0),
    ],
)
def test_fail_on_thresholds(capsys, fail_on, fault, expected):
    argv = ["diff", MLP, "--stages", "ir,opt,native"]
    if fault:
        argv += ["--inject", fault]
    for when in fail_on:
        argv += ["--fail-on", when]
    code, _, err = run(capsys, *argv)
    assert code == expected, err


@pytest.mark.parametrize(
    "argv,words",
    [
        (["diff", MLP, "--inject", "kernel"], "STAGE:NODE"),
        (["diff", MLP, "--inject", "kernel:nosuchnode"], "nosuchnode"),
        (["diff", MLP, "--fail-on", "speed>3"], "--fail-on"),
        (["diff", MLP, "--stages", "ir,bogus"], "bogus"),
        (["diff", MLP, "--tol", "f32=abc"], "f32"),
        (["diff", MLP, "--threads", "0"], "--threads"),
        (["diff", str(ROOT / "no_such_model.py")], "no_such_model.py"),
    ],
)
def test_user_mistakes_exit_2_without_traceback(capsys, argv, words):
    code, _, err = run(capsys, *argv)
    assert code == 2, err
    assert words in err and "Traceback" not in err


def test_bisect_names_the_injected_pass_action(capsys):
    code, out, _ = run(capsys, "bisect", MLP, "--inject", "pass:relu", "--no-llvm")
    assert code == 1
    assert "inject-fault" in out


def test_reduce_writes_a_repro_that_reproduces_on_its_own(capsys, tmp_path):
    out_dir = tmp_path / "repro"
    code, out, err = run(
        capsys, "reduce", MLP, "--inject", "kernel:fc3", "-o", str(out_dir)
    )
    assert code == 1, err
    assert (out_dir / "repro.py").exists() and (out_dir / "repro.pt").exists()
    proc = subprocess.run(
        [sys.executable, "repro.py"],
        cwd=out_dir,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    code, _, err = run(
        capsys, "reduce", MLP, "--inject", "kernel:fc3", "-o", str(out_dir)
    )
    assert code == 2 and "--force" in err


def _next_commands(table: str) -> list[list[str]]:
    """The `next` commands of a diff table, as argv lists (what a user pastes)."""
    lines = table.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("next "))
    commands = []
    for line in lines[start:]:
        text = line[4:].strip() if line.startswith("next ") else line.strip()
        if "#" in text and text.startswith("cuvil-debug "):
            commands.append(shlex.split(text.split("   #")[0]))
    return commands


def test_pasting_the_next_commands_of_an_injected_diff_reproduces_it(
    capsys, tmp_path, monkeypatch
):
    code, out, err = run(capsys, "diff", MLP, "--inject", "pass:relu", "-O1")
    assert code == 1, err
    commands = {argv[1]: argv for argv in _next_commands(out)}
    assert set(commands) == {"bisect", "reduce"}, out
    for argv in commands.values():  # the options that made the divergence
        assert argv[argv.index("--inject") + 1] == "pass:relu" and "-O1" in argv
    code, out, err = run(capsys, *commands["bisect"][1:], "--no-llvm")
    assert code == 1 and "inject-fault" in out, out + err
    monkeypatch.chdir(tmp_path)  # reduce writes ./cuvil-repro
    code, out, err = run(capsys, *commands["reduce"][1:])
    assert code == 1 and "first divergence: relu" in err, out + err
    assert (tmp_path / "cuvil-repro" / "repro.py").exists()


@pytest.mark.parametrize(
    "fault,op",
    [
        ("kernel:fc3", "%fc3 = cuvil.linear("),  # a kernel of its own
        ("kernel:relu", "%relu = cuvil.fused("),  # the fused kernel fc1+relu
    ],
)
def test_html_of_a_native_divergence_highlights_its_ir_op_and_reads_plainly(
    capsys, tmp_path, fault, op
):
    page = tmp_path / "diff.html"
    argv = ["diff", MLP, "--inject", fault, "--format", "html", "-o", str(page)]
    code, _, err = run(capsys, *argv)
    assert code == 1, err
    text = page.read_text()
    for word in ("False", "None", "True"):  # the pass table's booleans and blanks
        assert f">{word}<" not in text
    assert "<td>no</td>" in text and "<td>–</td>" in text
    ir = text.split("<h2>Optimized IR</h2>", 1)[1].split("</section>", 1)[0]
    marked = [line for line in ir.splitlines() if 'class="l introduced first"' in line]
    assert len(marked) == 1 and op in html.unescape(marked[0]), marked
