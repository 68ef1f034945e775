"""`cuvil-debug cache stats|verify|clear|gc` on a real cache directory."""

from __future__ import annotations

import json
import os

import pytest

from cuvil.runtime import cachemaint, objcache
from cuvil_debug.cli import main

ONE = objcache.HEADER + 1000  # the bytes of one test entry


def _fake(key_char: str, when: float) -> str:
    key = key_char * 64
    objcache.store_object(key, b"\x7fELF" + b"\0" * 996)
    path = objcache.cache_dir() / "objects" / key[:2] / f"{key}.o"
    os.utime(path, (when, when))
    return key


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(cachemaint.MAX_ENV, raising=False)
    return tmp_path


def test_stats_prints_hits_misses_rate_size_and_entries_by_last_use(cache, capsys):
    a, b = _fake("a", 1000), _fake("b", 2000)
    objcache.load_object(a), objcache.load_object(b), objcache.load_object("c" * 64)
    assert main(["cache", "stats"]) == 0
    out = capsys.readouterr().out
    assert "Level object" in out
    assert "Hits                     2 / 3        (66.67 %)" in out
    assert "Misses                   1" in out and f"Cache directory     {cache}" in out
    assert main(["cache", "stats", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    level = report["levels"]["object"]
    assert (level["hits"], level["misses"], level["stores"]) == (2, 1, 2)
    assert report["entries"] == 2 and report["bytes"] == 2 * ONE
    assert [e["key"] for e in report["entry_list"]] == [b, a]  # b was hit last


def test_stats_zero_resets_the_counters(cache, capsys):
    objcache.load_object("c" * 64)
    assert main(["cache", "stats", "--zero"]) == 0
    assert main(["cache", "stats", "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out[out.index("{\n") :])["levels"]["object"]["misses"] == 0


def test_verify_reports_what_it_removed(cache, capsys):
    _fake("a", 1000)
    bad = cache / "objects" / "bb" / f"{'b' * 64}.o"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"not an entry")
    assert main(["cache", "verify"]) == 0
    out = capsys.readouterr().out
    assert f"removed {bad}: " in out and "2 entries: 0 sound, 2 removed" in out
    assert not bad.exists()  # the fake `a` holds no debug key: removed too


def test_clear_and_gc_print_what_they_removed(cache, capsys):
    _fake("a", 1000), _fake("b", 2000), _fake("c", 3000)
    assert main(["cache", "gc", "--max", str(2 * ONE)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"evicted {'a' * 16}") and "evicted 1 entries; 2 left" in out
    assert main(["cache", "clear"]) == 0
    assert capsys.readouterr().out.startswith("removed 2 entries")
    assert cachemaint.entries(cache) == []


def _one_line_error(capsys) -> str:
    """The one error line (as test_cli_mistakes.py counts: argparse's usage line and
    a hint line may come with it), no traceback."""
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1 and "Traceback" not in err, err
    return errors[0]


@pytest.mark.parametrize(
    "argv",
    [
        ["cache", "stats", "--bogus"],
        ["cache", "frobnicate"],
        ["cache", "gc", "--max", "x"],
    ],
)
def test_bad_arguments_exit_2_with_one_line(cache, capsys, argv):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    _one_line_error(capsys)


def test_an_unreadable_cache_dir_exits_2_with_one_line(tmp_path, monkeypatch, capsys):
    not_dir = tmp_path / "file"
    not_dir.write_text("x")
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(not_dir))
    for command in ("stats", "verify", "clear"):
        assert main(["cache", command]) == 2
        assert "is not a directory" in _one_line_error(capsys)
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path))
    (tmp_path / "objects").write_text("x")
    assert main(["cache", "stats"]) == 2
    assert "objects' is not a directory" in _one_line_error(capsys)
    assert not_dir.read_text() == "x" and (tmp_path / "objects").read_text() == "x"


def test_gc_without_a_size_and_a_bad_cache_max_exit_2(cache, monkeypatch, capsys):
    assert main(["cache", "gc"]) == 2
    assert "--max SIZE" in _one_line_error(capsys)
    monkeypatch.setenv(cachemaint.MAX_ENV, "lots")
    assert main(["cache", "stats"]) == 2
    assert "CUVIL_CACHE_MAX='lots' is not a size" in _one_line_error(capsys)
