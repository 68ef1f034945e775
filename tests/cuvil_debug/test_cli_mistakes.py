"""Every user mistake exits 2 with one error line, no traceback, and changes no file.

The cases are not listed by hand: the parsers the tools use (``cuvil-debug``'s and
``cuvil-opt``'s) are walked, and every option of every subcommand gets the bad values
of its kind (negative, zero, not a number, an existing path, a missing one, a folder
where a file goes ...). An option of a kind this file does not know fails
`test_every_option_has_bad_values`: a new option is covered when it is added.
Each case runs in-process (``main(argv)``) in a folder whose files are compared before
and after; a sample runs as real subprocesses of the console scripts.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cuvil import argtypes
from cuvil import opt as cuvil_opt
from cuvil.args import pipeline_text
from cuvil_debug import cli, isolation
from cuvil_debug import symbols as symbols_cmd
from cuvil_debug.bench import baseline as bench_baseline
from cuvil_debug.bench import cli as bench_cmd
from cuvil_debug.graph import command as graph_cmd
from cuvil_debug.triage import shard as triage_shard

ROOT = Path(__file__).resolve().parents[2]
MODEL = str(ROOT / "samples" / "models" / "mlp.py")
IR = str(ROOT / "samples" / "ir" / "mlp.cuvilir")

# placeholders, made in the case's folder by `_folder`
FILE, DIR, MISSING, NO_PARENT = "{FILE}", "{DIR}", "{MISSING}", "{NO_PARENT}"
SNAPS, REPRO, NOT_MODEL, NOT_JSON = "{SNAPS}", "{REPRO}", "{NOT_MODEL}", "{NOT_JSON}"

# what a value of each type must not be
BY_TYPE = {
    argtypes.count: ["-1", "x", "1.5"],
    argtypes.positive_int: ["0", "-3", "x"],
    argtypes.positive_float: ["0", "-5", "nan", "inf", "x"],
    argtypes.non_negative_float: ["-1", "nan", "-inf", "x"],
    argtypes.finite_float: ["nan", "inf", "x"],
    argtypes.byte_size: ["0", "-1", "12Q"],
    isolation.memory_size: ["0", "-1G", "lots"],
    argtypes.existing_file: [MISSING, DIR],
    argtypes.input_file: [MISSING, DIR],
    argtypes.folder_path: [FILE],
    argtypes.existing_folder: [FILE, NO_PARENT],
    pipeline_text: ["no-such-pass", "dce{bogus=1}", "dce,,"],
    symbols_cmd._count: ["-1", "x"],
    symbols_cmd._number: ["-1", "x", "nan"],
    graph_cmd._depth: ["0", "x"],
    symbols_cmd._store_dir: [FILE],  # a file is no store
    bench_cmd.batch_sizes: ["0", "x", "1,,8"],
    bench_baseline.percentage: ["0", "-5%", "x"],
    triage_shard.shard_spec: ["0/3", "4/3", "1/0", "x", "2"],
}
# options without a type= (strings checked when the command runs), by dest
BY_DEST = {
    "model": [MISSING, DIR, NOT_MODEL],
    "models": [MISSING, NOT_MODEL],
    "entry": ["NoSuchClass"],
    "output": [FILE, DIR, NO_PARENT],
    "dot": [FILE, DIR],
    "stages": ["bogus", ","],
    "tol": ["f16=x", "bogus", "f32=-1,0"],
    "fail_on": ["bogus", "max_abs>x"],
    "inject": ["bogus", "kernel:no_such_node"],
    "break_on": ["no_such_node"],
    "node": ["no_such_node"],
    "diff": [MISSING, NOT_JSON],
    "function": ["no_such_function"],
    "paths": [MISSING],
    "trace": [FILE, DIR, NO_PARENT],
    "address": ["127.0.0.1:1"],  # without --executor ray
    "out": [FILE, DIR, NO_PARENT],
    "save_inputs": [FILE, DIR, NO_PARENT],
    "skip": ["no_such_layer"],
}
# (command, dest) -> values where the command's own kind differs from BY_DEST's
BY_COMMAND = {
    ("reduce", "output"): [FILE, REPRO],
    ("tui", "model"): [MISSING, DIR, NOT_MODEL, NOT_JSON],
    ("graph", "model"): [MISSING, DIR, NOT_MODEL],
    # triage reports a model that lacks --entry as a finding of the batch (exit 1,
    # tests/cuvil_debug/triage); a path that is not there, or nothing to triage, is a
    # mistake
    ("triage", "models"): [DIR, MISSING],
    ("triage", "entry"): [],
    # one model that is not there or not a model: the single diff's mistake; an
    # (empty) folder is a diff of many models that finds none
    ("diff", "models"): [MISSING, DIR, NOT_MODEL],
    ("symbols find", "key"): [],
    # a glob that matches no model, or one with characters the workflow cannot hold
    ("ci init", "models"): [
        MISSING,
        "a'b",
        "$(touch x)",
        " ",
    ],  # any text is a key; absent is exit 1, not a mistake
}
SKIP = {"help", "version", "traceback"}
# the valid positionals of each command, around the option under test
BASE = {
    "ir": [MODEL],
    "validate": [IR],
    "triage": [MODEL],
    "passes": [MODEL],
    "opt": [IR],
    "diff": [MODEL],
    "bisect": [MODEL],
    "reduce": [MODEL],
    "symbols add": [IR],
    "symbols find": ["0" * 40],
    "tui": [IR],
    "graph": [IR],
    "ci report": [str(ROOT / "tests" / "cuvil_debug" / "ci" / "data" / "triage.json")],
    "bench": [MODEL],
    "profile": [MODEL],
    "tune": [MODEL],
    "quant": [MODEL],
}


def _leaves(parser: argparse.ArgumentParser, name: tuple[str, ...] = ()):
    """(command words, parser) of every subcommand that runs something."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield name, parser
    for action in subs:
        for word, sub in action.choices.items():
            yield from _leaves(sub, (*name, word))


def _options(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if action.dest in SKIP or isinstance(action, argparse._SubParsersAction):
            continue
        if action.nargs == 0:  # a flag: no value to get wrong
            continue
        yield action


def _bad_values(command: str, action: argparse.Action) -> list[str] | None:
    """The bad values of `action` (None: of a kind this file does not know)."""
    if (command, action.dest) in BY_COMMAND:
        return BY_COMMAND[(command, action.dest)]
    if action.choices is not None:
        return ["bogus-choice"]
    if action.type is not None:
        return BY_TYPE.get(action.type)
    return BY_DEST.get(action.dest)


def _cases():
    """(id, tool, argv) of every bad value of every option; and the uncovered."""
    cases, uncovered = [], []
    tools = [
        ("cuvil-debug", cli.build_parser()),
        ("cuvil-opt", cuvil_opt.build_parser()),
    ]
    for tool, parser in tools:
        for words, sub in _leaves(parser):
            command = " ".join(words) or "opt"  # cuvil-opt is `opt`
            if tool == "cuvil-opt" and words:
                continue
            for action in _options(sub):
                values = _bad_values(command, action)
                if values is None:
                    uncovered.append(f"{tool} {command} {action.dest}")
                    continue
                for value in values:
                    argv = _argv(words, command, action, value)
                    flag = action.option_strings[-1] if action.option_strings else ""
                    label = f"{tool}:{command}:{flag or action.dest}={value}"
                    cases.append(pytest.param(tool, argv, id=label))
    return cases, uncovered


def _argv(words, command: str, action: argparse.Action, value: str) -> list[str]:
    base = list(BASE.get(command, []))
    if not action.option_strings:  # the positional itself is the bad value
        return [*words, value]
    return [*words, *base, action.option_strings[-1], value]


CASES, UNCOVERED = _cases()


def test_every_option_has_bad_values():
    assert UNCOVERED == [], "give these options bad values in BY_TYPE/BY_DEST"
    assert len(CASES) > 150


# ---- the folder a case runs in ---------------------------------------------------------
@pytest.fixture
def folder(tmp_path, monkeypatch):
    (tmp_path / "existing.txt").write_text("the user's file\n")
    (tmp_path / "adir").mkdir()
    (tmp_path / "snaps").mkdir()
    (tmp_path / "snaps" / "0001-dce.cuvilir").write_text("// an earlier run\n")
    (tmp_path / "repro").mkdir()
    (tmp_path / "repro" / "repro.py").write_text("# an earlier repro\n")
    (tmp_path / "not_a_model.py").write_text("x = 1  # no Model\n")
    (tmp_path / "not_json.json").write_text("{ not json\n")
    monkeypatch.chdir(tmp_path)  # reduce's default ./cuvil-repro would land here
    monkeypatch.setenv("CUVIL_SYMBOL_STORE", str(tmp_path / "store"))
    return tmp_path


def _fill(argv: list[str], root: Path) -> list[str]:
    names = {
        FILE: "existing.txt",
        DIR: "adir",
        MISSING: "missing.py",
        NO_PARENT: "no/such/folder/out.txt",
        SNAPS: "snaps",
        REPRO: "repro",
        NOT_MODEL: "not_a_model.py",
        NOT_JSON: "not_json.json",
    }
    return [str(root / names[a]) if a in names else a for a in argv]


def _files(root: Path) -> dict[str, tuple[str, int]]:
    """Every path under `root`: its content's hash (or 'dir') and mtime."""
    out = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        kind = "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
        out[str(path.relative_to(root))] = (kind, st.st_mtime_ns)
    return out


def _run(tool: str, argv: list[str], capsys) -> tuple[int, str, str]:
    main = cli.main if tool == "cuvil-debug" else cuvil_opt.main
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's errors
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def _assert_mistake(code, out, err, before, after) -> None:
    assert code == 2, f"exit {code}\nstdout: {out[-2000:]}\nstderr: {err[-2000:]}"
    text = out + err
    assert "Traceback" not in text, err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1, err
    assert len(errors[0]) < 400, errors[0]
    assert after == before, "a file changed"


@pytest.mark.parametrize("tool, argv", CASES)
def test_a_bad_value_exits_2_with_one_line_and_changes_nothing(
    tool, argv, folder, capsys
):
    argv = _fill(argv, folder)
    before = _files(folder)
    code, out, err = _run(tool, argv, capsys)
    _assert_mistake(code, out, err, before, _files(folder))


# ---- the checks that need more than one option ----------------------------------------
MORE = [
    ("passes", [MODEL, "--snapshot-dir", SNAPS]),
    ("opt", [IR, "--snapshot-dir", SNAPS]),
    ("opt", [IR, "--random-params", "--max-constant-bytes", "1K"]),
    ("triage", [MODEL, "--static", "-o", FILE]),
    ("triage", [MODEL, "--static", "--format", "json", "-o", FILE]),
    ("diff", [MODEL, "--format", "json", "-o", FILE]),
    ("diff", [MODEL, "--dot", FILE, "-o", "report.txt"]),
    ("graph", [IR, "--format", "png"]),
    ("graph", [IR, "-o", "picture.bmp"]),
    ("reduce", [MODEL, "--frontend", "export"]),
    ("bisect", [MODEL, "--break-on", "relu"]),
    ("ci report", [NOT_JSON]),
    ("ci report", [NOT_MODEL]),
    ("ci init", ["--dir", DIR, "--models", "*.py"]),
    # diff over many models: what only one model's diff can do, and bad model lists
    ("diff", [MODEL, MODEL, "--format", "html"]),
    ("diff", [MODEL, "--shard", "1/2", "--format", "dot"]),
    ("diff", [MODEL, MODEL, "--tui"]),
    ("diff", [MODEL, "--shard", "2/3", "--dot", "graph.dot"]),
    ("diff", [MODEL, MODEL, "--break-on", "relu"]),
    ("diff", [MODEL, MODEL, "--no-isolate", "-j", "2"]),
    ("diff", [MODEL, MODEL, "--no-isolate", "--timeout", "60"]),
    ("diff", [MODEL, MISSING, "--format", "json"]),
    ("diff", [DIR, "--shard", "1/3"]),
    ("diff", ["adir/*.py", "--format", "junit"]),
]


@pytest.mark.parametrize(
    "command, args", MORE, ids=[f"{c}:{' '.join(a)}" for c, a in MORE]
)
def test_mistakes_of_option_combinations_exit_2(command, args, folder, capsys):
    argv = _fill([command, *args], folder)
    argv = [a.replace(str(ROOT), str(ROOT)) for a in argv]
    before = _files(folder)
    code, out, err = _run("cuvil-debug", argv, capsys)
    _assert_mistake(code, out, err, before, _files(folder))


def test_reduce_refuses_an_existing_repro_before_loading_the_model(folder, capsys):
    marker = folder / "imported"
    model = folder / "model.py"
    model.write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('x')\n"
        + Path(MODEL).read_text()
    )
    argv = ["reduce", str(model), "-o", str(folder / "repro")]
    code, out, err = _run("cuvil-debug", argv, capsys)
    assert code == 2 and "already exists" in err and "--force" in err
    assert not marker.exists(), "the model was loaded before -o was checked"


def test_triage_refuses_an_existing_report_before_any_capture(folder, capsys):
    marker = folder / "imported"
    model = folder / "model.py"
    model.write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('x')\n"
        + Path(MODEL).read_text()
    )
    argv = ["triage", str(model), "--no-isolate", "-o", str(folder / "existing.txt")]
    code, _, err = _run("cuvil-debug", argv, capsys)
    assert code == 2 and "--force" in err and not marker.exists()
    assert (folder / "existing.txt").read_text() == "the user's file\n"


def test_force_lets_the_report_replace_the_file(folder, capsys):
    argv = ["triage", MODEL, "--static", "--format", "json", "-o", "existing.txt"]
    code, _, err = _run("cuvil-debug", [*argv, "--force"], capsys)
    assert code == 0, err
    assert (folder / "existing.txt").read_text().startswith("{")
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == []


# ---- end to end: the console scripts as subprocesses ----------------------------------
# each starts torch (seconds): two in the quick tier, the rest in the slow one
_SLOW = pytest.mark.slow
SAMPLE = [
    pytest.param(["cuvil-debug", "triage", MODEL, "--timeout", "-5"], id="triage"),
    pytest.param(["cuvil-opt", IR, "-o", FILE], id="cuvil-opt"),
    pytest.param(["cuvil-debug", "triage", MODEL, "-j", "0"], id="jobs", marks=_SLOW),
    pytest.param(
        ["cuvil-debug", "diff", MODEL, "--rtol", "-1"], id="diff", marks=_SLOW
    ),
    pytest.param(
        ["cuvil-debug", "passes", MODEL, "--snapshot-dir", FILE],
        id="passes",
        marks=_SLOW,
    ),
    pytest.param(["cuvil-debug", "validate", MISSING], id="validate", marks=_SLOW),
    pytest.param(["cuvil-debug", "ir", NOT_MODEL], id="ir", marks=_SLOW),
]


@pytest.mark.parametrize("argv", SAMPLE)
def test_console_scripts_exit_2_end_to_end(argv, folder):
    script = Path(sys.executable).parent / argv[0]
    before = _files(folder)
    proc = subprocess.run(
        [str(script), *_fill(argv[1:], folder)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=folder,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    _assert_mistake(proc.returncode, proc.stdout, proc.stderr, before, _files(folder))
