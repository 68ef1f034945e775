"""`cuvil-debug symbols add|list|find|gc|serve`: what they print, their exit codes, and
the debuginfod answers of `serve`."""

from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import torch
from torch import nn

import cuvil
from cuvil.codegen.target import target_machine
from cuvil_debug.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    """(split bundle, whole bundle, JIT object file) of one small model."""
    tmp = tmp_path_factory.mktemp("cli")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU()).eval()
    compiled = cuvil.compile(model, [torch.randn(2, 8)], options={"debug": True})
    split = cuvil.save(compiled, tmp / "split", split_debug=True)
    whole = cuvil.save(
        cuvil.compile(model, [torch.randn(3, 8)]), tmp / "whole", split_debug=False
    )
    store = tmp / "jit-store"
    kept = cuvil.compile(model, [torch.randn(4, 8)], options={"keep_symbols": store})
    obj = tmp / "kernel.o"
    obj.write_bytes((store / ".build-id").rglob("*.debug").__next__().read_bytes())
    return split, whole, obj, kept.debug_key


def _key(bundle: Path) -> str:
    return json.loads((bundle / "model.json").read_text())["debug_key"]


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_add_list_find(bundles, tmp_path, capsys):
    split, whole, obj, jit_key = bundles
    store = ["--store", str(tmp_path)]
    code, out, _ = _run(
        capsys, "symbols", "add", str(split), str(whole), str(obj), *store
    )
    assert code == 0 and len(out.splitlines()) == 3, out
    code, out, _ = _run(capsys, "symbols", "list", *store)
    rows = {line.split()[0]: line.split() for line in out.splitlines()}
    assert rows[_key(split)][1:3] == ["aot", "split"]
    assert rows[_key(whole)][1:3] == ["aot", "whole"]
    assert rows[jit_key][1:3] == ["jit", "Sequential"]
    code, out, _ = _run(capsys, "symbols", "find", _key(split), *store)
    assert code == 0
    assert Path(out.strip()).read_bytes() == (split / "model.debug").read_bytes()
    code, out, _ = _run(capsys, "symbols", "find", _key(split), "--executable", *store)
    assert Path(out.strip()).read_bytes() == (split / "model.so").read_bytes()
    code, out, _ = _run(capsys, "symbols", "find", _key(whole), "--executable", *store)
    assert Path(out.strip()).read_bytes() == (whole / "model.so").read_bytes()
    code, out, err = _run(capsys, "symbols", "find", "ab" * 20, *store)
    assert (code, out) == (1, "") and "not in the store" in err
    code, out, _ = _run(capsys, "symbols", "list", "--json", *store)
    assert {json.loads(line)["key"] for line in out.splitlines()} == set(rows)


def test_add_takes_the_files_of_a_split_bundle_one_by_one(bundles, tmp_path, capsys):
    split = bundles[0]
    store = ["--store", str(tmp_path)]
    assert _run(capsys, "symbols", "add", str(split / "model.so"), *store)[0] == 0
    assert _run(capsys, "symbols", "find", _key(split), *store)[0] == 1  # no DWARF yet
    assert _run(capsys, "symbols", "add", str(split / "model.debug"), *store)[0] == 0
    assert _run(capsys, "symbols", "find", _key(split), *store)[0] == 0


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    import llvmlite.binding as llvm

    plain = tmp_path / "plain.o"
    mod = llvm.parse_assembly("define void @f() {\n  ret void\n}\n")
    plain.write_bytes(target_machine(0).emit_object(mod))
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    store = ["--store", str(tmp_path / "store")]
    for path, message in [
        (plain, "has no build-id"),
        (text, "not an ELF file"),
        (tmp_path / "missing.so", "no such file"),
        (tmp_path, "not a saved model"),
    ]:
        code, out, err = _run(capsys, "symbols", "add", str(path), *store)
        assert code == 2 and message in err and "Traceback" not in err, err
        assert err.startswith("cuvil-debug: error: ") and len(err.splitlines()) <= 2
    code, _, err = _run(capsys, "symbols", "find", "xyz", *store)
    assert code == 2 and "is not a debug key" in err
    assert not (tmp_path / "store").exists()  # nothing was written


def test_gc_from_the_command_line(bundles, tmp_path, capsys):
    split, whole, _, _ = bundles
    store = ["--store", str(tmp_path)]
    _run(capsys, "symbols", "add", str(split), str(whole), *store)
    code, out, _ = _run(capsys, "symbols", "gc", "--keep", "1", *store)
    assert code == 0 and "1 removed, 1 left" in out
    code, out, _ = _run(capsys, "symbols", "gc", "--max-size", "0", *store)
    assert code == 0 and "1 removed, 0 left" in out
    with pytest.raises(SystemExit) as exit_:
        main(["symbols", "gc", "--older-than", "soon", *store])
    assert exit_.value.code == 2


def _get(url: str, method: str = "GET") -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method)) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, b""


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_serve_answers_debuginfod_requests_until_signalled(bundles, tmp_path, stop):
    split, _, _, _ = bundles
    main(["symbols", "add", str(split), "--store", str(tmp_path)])
    argv = [sys.executable, "-m", "cuvil_debug.cli", "symbols", "serve"]
    proc = subprocess.Popen(
        [*argv, "--store", str(tmp_path), "--port", "0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert select.select([proc.stdout], [], [], 120)[0], (
            "the server printed nothing"
        )
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/")
        key = _key(split)
        debug = (split / "model.debug").read_bytes()
        assert _get(f"{url}buildid/{key}/debuginfo") == (200, debug)
        assert _get(f"{url}buildid/{key.upper()}/debuginfo") == (200, debug)
        library = (split / "model.so").read_bytes()
        assert _get(f"{url}buildid/{key}/executable") == (200, library)
        assert _get(f"{url}buildid/{key}/debuginfo", "HEAD") == (200, b"")
        assert _get(f"{url}buildid/{'ab' * 20}/debuginfo")[0] == 404
        assert _get(f"{url}buildid/{key}/source/x.py")[0] == 404
        assert _get(f"{url}buildid/../../etc/passwd/debuginfo")[0] == 404
    finally:
        proc.send_signal(stop)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert f"GET /buildid/{key}/debuginfo HTTP/1.1" in err
