"""Tools the examined model cannot fool: hostile models (tests/cuvil_debug/hostile/)
run through the real `cuvil-debug triage` and `cuvil-debug diff` command lines.

A forged result is never taken for a real one, a model's output never reaches the
report on stdout, and a model that exits, crashes, hangs or exhausts its memory is
reported as what it did, with a non-zero exit, while the models beside it are still
triaged.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HOSTILE = Path(__file__).resolve().parent / "hostile"
LIMIT_S = 600  # the subprocess's own limit: far above any run, never reached
# a hang is a hang: the good models' captures take well under a second, so 20 s is a
# margin, not a race (the timeout clock starts after the worker imported torch)
HANG_TIMEOUT = "20"


def cli(*argv: str, cwd: Path = HOSTILE) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cuvil_debug.cli", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
    )


def triage_json(*models: str, extra: tuple[str, ...] = ()):
    proc = cli("triage", *models, "--format", "json", "--max-memory", "1G", *extra)
    doc = json.loads(proc.stdout)  # stdout is the report and nothing else
    return proc, {Path(r["model"]).name: r for r in doc["results"]}


def test_triage_reports_forgers_printers_and_exits_as_what_they_are():
    models = [
        "good.py",
        "forger.py",
        "forger_hunt.py",
        "noisy.py",
        "exit_forward.py",
        "sysexit_forward.py",
    ]
    proc, by = triage_json(*models, extra=("-j", "2"))
    assert proc.returncode == 1, proc.stderr
    assert by["good.py"]["status"] == "ok"
    # fds 3..20 and the environment's numbers do not reach the channel: the real
    # result (a data-dependent branch) stands
    assert by["forger.py"]["status"] == "failed"
    assert by["forger.py"]["category"] == "data-dependent-control-flow"
    # found by hunting through /proc/self/fd: rejected (no nonce) and said so
    hunt = by["forger_hunt.py"]
    assert hunt["status"] == "error"
    assert "the model wrote to the result channel" in hunt["message"]
    # prints are captured, in the model's record, never on stdout
    noisy = by["noisy.py"]
    assert noisy["status"] == "ok"
    for words in ("stdout at import", "stderr at import", "stdout in forward"):
        assert words in noisy["output"]
    assert by["exit_forward.py"]["status"] == "crash"
    assert "exit code 0" in by["exit_forward.py"]["message"]
    assert "os._exit(0)" in by["exit_forward.py"]["message"]
    assert by["sysexit_forward.py"]["status"] == "crash"
    assert "sys.exit(0)" in by["sysexit_forward.py"]["message"]


@pytest.mark.slow
def test_triage_reports_crashes_hangs_and_memory_and_still_triages_the_others():
    models = ["exit_import.py", "segfault.py", "good.py", "memory_hog.py", "hang.py"]
    extra = ("-j", "1", "--timeout", HANG_TIMEOUT)  # one worker: each death restarts it
    proc, by = triage_json(*models, "noisy.py", extra=extra)
    assert proc.returncode == 1, proc.stderr
    assert by["exit_import.py"]["status"] == "crash"
    assert "exit code 0" in by["exit_import.py"]["message"]
    assert by["segfault.py"]["status"] == "crash"
    assert "killed by SIGSEGV" in by["segfault.py"]["message"]
    assert by["memory_hog.py"]["status"] == "error"
    assert "ran out of memory" in by["memory_hog.py"]["message"]
    assert by["hang.py"]["status"] == "timeout"
    assert f"within {HANG_TIMEOUT} s" in by["hang.py"]["message"]
    assert by["good.py"]["status"] == by["noisy.py"]["status"] == "ok"


@pytest.mark.slow
def test_triage_writes_the_report_file_only_after_every_model_ran(tmp_path):
    """noisy.py says at import whether the report exists yet; it must not."""
    report = tmp_path / "report.json"
    env_model = tmp_path / "watcher.py"
    env_model.write_text(
        (HOSTILE / "good.py").read_text()
        + f"\nprint('report exists:', __import__('os').path.exists({str(report)!r}))\n"
    )
    proc = cli("triage", str(env_model), "--format", "json", "-o", str(report))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    (result,) = json.loads(report.read_text())["results"]
    assert "report exists: False" in result["output"]


def diff_json(model: str, *extra: str) -> subprocess.CompletedProcess:
    proc = cli("diff", model, "--format", "json", "--max-memory", "2G", *extra)
    if proc.returncode in (0, 1):
        json.loads(proc.stdout)  # a verdict comes with its whole report, alone
    else:
        assert proc.stdout == "", "no report, or a whole one"
        assert "Traceback" not in proc.stderr
        assert ": error: " in proc.stderr  # one line saying why
    return proc


@pytest.mark.slow
def test_diff_stdout_is_only_the_report_when_the_model_prints():
    proc = diff_json("noisy.py")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["model"] == "noisy.py"
    assert "stdout in forward" not in proc.stdout
    assert "stdout in forward" in proc.stderr  # relayed, not lost


def test_diff_exits_non_zero_when_the_model_calls_os_exit_0():
    proc = diff_json("exit_forward.py")
    assert proc.returncode == 2
    assert "exit code 0" in proc.stderr and "no report is written" in proc.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("model", "extra", "code", "words"),
    [
        ("exit_import.py", (), 2, "exit code 0"),
        ("sysexit_forward.py", (), 2, "sys.exit(0)"),
        ("segfault.py", (), 3, "killed by SIGSEGV"),
        ("hang.py", ("--timeout", HANG_TIMEOUT), 2, f"within {HANG_TIMEOUT} s"),
        ("memory_hog.py", ("--max-memory", "1G"), 2, "MemoryError"),
        ("forger_hunt.py", (), 2, "wrote to the diff's result channel"),
        ("forger.py", (), 2, "control flow"),  # its real failure, not "done"
        ("good.py", (), 0, ""),
    ],
)
def test_diff_reports_each_hostile_model_as_what_it_is(model, extra, code, words):
    proc = diff_json(model, *extra)
    assert proc.returncode == code, proc.stderr
    assert words in proc.stderr


def test_the_channel_is_hidden_and_rejects_lines_without_the_nonce():
    """The worker's end: out of the environment, far from the low descriptors; the
    parent: a line without the nonce is forged, one behind a stray prefix is real."""
    from cuvil_debug.isolation import Channel

    channel = Channel()
    code = (
        "import os, sys\n"
        "from cuvil_debug.isolation import WorkerChannel\n"
        "w = WorkerChannel()\n"
        "assert not any(k.startswith('CUVIL_WORKER') for k in os.environ)\n"
        "assert w._fd >= 512\n"
        "try:\n"
        f"    os.write({channel.pass_fds[0]}, b'never sent: the number is closed')\n"
        "except OSError:\n"
        "    pass\n"
        "w.send({'event': 'first'})\n"
        'os.write(w._fd, b\'{"event": "forged"}\\npartial \')\n'
        "w.send({'event': 'second'})\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        pass_fds=channel.pass_fds,
        env=channel.env(),
        cwd=Path(__file__).resolve().parents[2],
        stderr=subprocess.PIPE,
    )
    channel.start()
    _, err = proc.communicate(timeout=LIMIT_S)
    assert proc.returncode == 0, err.decode()
    events = []
    while (event := channel.events.get(timeout=LIMIT_S)) is not None:
        events.append(event)
    first, forged, second = events
    assert first == {"event": "first"}
    assert forged["event"] == "forged"
    assert second["event"] == "second" and second["forged_prefix"] == "partial "
    assert os.environ.get("CUVIL_WORKER_CHANNEL_FD") is None


@pytest.mark.parametrize(
    ("text", "size"), [("512M", 512 << 20), ("2G", 2 << 30), ("1.5GiB", 3 << 29)]
)
def test_memory_sizes(text, size):
    from cuvil_debug.isolation import parse_size

    assert parse_size(text) == size
    with pytest.raises(ValueError):
        parse_size("-1G")
