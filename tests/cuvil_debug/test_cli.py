"""cuvil-debug: subcommands, exit codes, and one-line errors without tracebacks."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

import cuvil
from cuvil.ir import parse_module, verify
from cuvil_debug import cli
from cuvil_debug.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples" / "models"
CONSOLE_SCRIPT = Path(sys.executable).parent / "cuvil-debug"

GOOD_IR = """\
module @tiny {
  func @forward(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>) {
    %y = cuvil.relu(%x) : (tensor<1x4xf32>) -> tensor<1x4xf32>
    return %y
  }
}
"""
# The relu's declared result type contradicts its type rule (line 3, column 5).
BAD_IR = GOOD_IR.replace("-> tensor<1x4xf32>\n", "-> tensor<1x5xf32>\n", 1)
ERROR_LINE = re.compile(r"^\S+:\d+:\d+: error: ", re.MULTILINE)


@pytest.fixture
def ir_files(tmp_path):
    files = {"good": GOOD_IR.encode(), "bad": BAD_IR.encode()}
    files["garbage"] = b"\x00\xff\xfe\x89PNG garbage \x01\x02"
    files["truncated"] = GOOD_IR[:40].encode()
    paths = {}
    for name, data in files.items():
        paths[name] = tmp_path / f"{name}.cuvilir"
        paths[name].write_bytes(data)
    return paths


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---- validate ------------------------------------------------------------------------


def test_validate_good_file_prints_ok_and_exits_0(capsys, ir_files):
    code, out, err = run(capsys, "validate", str(ir_files["good"]))
    assert (code, out, err) == (0, f"{ir_files['good']}: ok\n", "")


def test_validate_quiet_prints_nothing_for_good_files(capsys, ir_files):
    assert run(capsys, "validate", "-q", str(ir_files["good"])) == (0, "", "")


def test_validate_verifier_error_has_file_line_col(capsys, ir_files):
    code, out, err = run(capsys, "validate", str(ir_files["bad"]))
    assert code == 1 and out == ""
    assert err.startswith(f"{ir_files['bad']}:3:5: error: 'cuvil.relu'")
    assert "Traceback" not in err


def test_validate_garbage_bytes_is_a_located_error_not_a_crash(capsys, ir_files):
    code, _, err = run(capsys, "validate", str(ir_files["garbage"]))
    assert code == 1
    assert err.startswith(f"{ir_files['garbage']}:1:") and ERROR_LINE.search(err)
    assert "Traceback" not in err


def test_validate_parse_error_shows_the_line_and_a_caret(capsys, ir_files):
    code, _, err = run(capsys, "validate", str(ir_files["truncated"]))
    assert code == 1 and ERROR_LINE.match(err)
    assert err.rstrip().endswith("^")


def test_validate_reports_every_file_and_fails_if_any_fails(capsys, ir_files):
    files = [str(ir_files[n]) for n in ("good", "bad", "garbage")]
    code, out, err = run(capsys, "validate", *files)
    assert code == 1
    assert out == f"{ir_files['good']}: ok\n"
    assert str(ir_files["bad"]) in err and str(ir_files["garbage"]) in err


def test_validate_missing_file_is_a_usage_error(capsys, tmp_path):
    missing = tmp_path / "missing.cuvilir"
    with pytest.raises(SystemExit) as info:  # checked when the command line is parsed
        main(["validate", str(missing)])
    assert info.value.code == 2
    assert (
        f"error: argument FILE: '{missing}' does not exist" in capsys.readouterr().err
    )


def test_validate_needs_a_file():
    with pytest.raises(SystemExit) as info:
        main(["validate"])
    assert info.value.code == 2


# ---- ir ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["mlp", "small_cnn", "resnet18", "transformer_block"])
def test_ir_prints_verifiable_ir_for_each_sample(capsys, name):
    code, out, err = run(capsys, "ir", str(SAMPLES / f"{name}.py"))
    assert (code, err) == (0, "")
    module = verify(parse_module(out))
    assert module.functions and f"{name}.py" in out  # locations point at the model
    for op in module.main.ops:  # every op: an FX node and a line of the sample file
        assert op.loc.nodes and f"models/{name}.py:" in (op.loc.source() or "")


@pytest.mark.parametrize("name", ["mlp", "transformer_block"])
def test_ir_with_export_frontend(capsys, name):
    code, out, _ = run(
        capsys, "ir", "--frontend", "export", str(SAMPLES / f"{name}.py")
    )
    assert code == 0
    verify(parse_module(out))


def test_ir_missing_model_file_is_one_line_and_exit_2(capsys, tmp_path):
    code, out, err = run(capsys, "ir", str(tmp_path / "nope.py"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "does not exist" in err
    assert "Traceback" not in err


def test_ir_syntax_error_is_located(capsys, tmp_path):
    model = tmp_path / "model.py"
    model.write_text("def f(:\n")
    code, _, err = run(capsys, "ir", str(model))
    assert code == 2 and err.startswith(f"{model}:1:7: error: syntax error")


def test_ir_output_file_is_written_and_validates(capsys, tmp_path):
    target = tmp_path / "mlp.cuvilir"
    code, out, _ = run(capsys, "ir", str(SAMPLES / "mlp.py"), "-o", str(target))
    assert code == 0 and out == ""
    assert run(capsys, "validate", str(target))[0] == 0


def test_ir_output_refuses_to_overwrite_without_force(capsys, tmp_path):
    target = tmp_path / "keep.cuvilir"
    target.write_text("precious\n")
    code, _, err = run(capsys, "ir", str(SAMPLES / "mlp.py"), "-o", str(target))
    assert code == 2 and "already exists; pass --force" in err
    assert target.read_text() == "precious\n"
    code, _, _ = run(
        capsys, "ir", str(SAMPLES / "mlp.py"), "-o", str(target), "--force"
    )
    assert code == 0 and target.read_text().startswith("module @")


def test_ir_output_into_missing_folder_fails_before_loading(capsys, tmp_path):
    target = tmp_path / "no" / "such" / "dir.cuvilir"
    code, _, err = run(capsys, "ir", str(tmp_path / "nope.py"), "-o", str(target))
    assert code == 2 and "does not exist; create it first" in err


# ---- global behaviour ----------------------------------------------------------------


def test_no_command_prints_help_and_exits_2(capsys):
    code, _, err = run(capsys)
    assert code == 2 and "usage: cuvil-debug" in err


def test_unknown_command_is_an_argparse_error():
    with pytest.raises(SystemExit) as info:
        main(["frobnicate"])
    assert info.value.code == 2


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"cuvil-debug {cuvil.__version__}\n"


def test_user_error_traceback_flag_reraises(tmp_path):
    with pytest.raises(cuvil.FrontendError):
        main(["--traceback", "ir", str(tmp_path / "nope.py")])


def test_internal_error_is_one_line_exit_3_unless_traceback(
    capsys, monkeypatch, ir_files
):
    def crash(path, *limits):
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli, "validate_file", crash)
    code, _, err = run(capsys, "validate", str(ir_files["good"]))
    assert code == 3
    assert (
        err
        == "cuvil-debug: internal error: RuntimeError: a bug (rerun with --traceback)\n"
    )
    with pytest.raises(RuntimeError):
        main(["--traceback", "validate", str(ir_files["good"])])


# ---- the installed console script ----------------------------------------------------


def test_console_script_validates_and_reports_errors(ir_files):
    proc = subprocess.run(
        [
            str(CONSOLE_SCRIPT),
            "validate",
            str(ir_files["good"]),
            str(ir_files["garbage"]),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert proc.stdout == f"{ir_files['good']}: ok\n"
    assert ERROR_LINE.match(proc.stderr) and "Traceback" not in proc.stderr


def test_triage_is_a_subcommand_of_the_main_cli(capsys):
    import json

    from cuvil_debug.cli import main

    code = main(
        [
            "triage",
            "samples/failures/ddcf_gate_threshold.py",
            "--format",
            "json",
            "--no-isolate",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert report["results"][0]["category"] == "data-dependent-control-flow"


def test_the_readme_roadmap_names_what_exists_as_there_today():
    roadmap = (ROOT / "README.md").read_text().split("## Roadmap", 1)[1]
    today, planned = roadmap.split("Planned, not there yet", 1)
    choices = next(
        a.choices for a in cli.build_parser()._actions if getattr(a, "choices", None)
    )
    listed = today.split("`cuvil-debug`", 1)[1].split("(`cuvil-debug --help`", 1)[0]
    commands = set(re.findall(r"`([a-z]+)`", listed))
    assert commands <= set(choices)  # each one named is a real subcommand
    assert {"passes", "opt", "diff", "bisect", "reduce", "triage"} <= commands
    assert (
        "cuvil-opt" in today
        and "cuvil-opt"
        in subprocess.run(
            [str(CONSOLE_SCRIPT.parent / "cuvil-opt"), "--help"],
            capture_output=True,
            text=True,
        ).stdout
    )
    for command in commands:  # nothing that exists is still called planned
        assert f"`{command}`" not in planned and f"cuvil-debug {command}" not in planned
