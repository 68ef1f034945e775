"""The debug ladder (compiler/debuglevel.py): each CUVIL_DEBUG level prints what it
promises and nothing of the next; debug_level(n) is scoped; a bad level is an error."""

from __future__ import annotations

import threading

import pytest
import torch
from torch import nn

import cuvil
from cuvil import debuglevel

# what each level adds, on stderr
MARKS = {
    1: "cuvil: compiled Tiny in",
    2: "cuvil: kernels of Tiny",
    3: "// ----- IR after dce -----",
    4: "// ----- LLVM IR -----",
    5: "// ----- assembly -----",
}


class Tiny(nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(debuglevel.ENV, raising=False)
    monkeypatch.delenv(debuglevel.DIR_ENV, raising=False)
    return tmp_path


def _compile_err(capfd) -> str:
    capfd.readouterr()
    cm = cuvil.compile(Tiny(), [torch.randn(4)])
    assert cm(torch.ones(4)).tolist() == [2.0] * 4
    return capfd.readouterr().err


@pytest.mark.parametrize("level", [0, 1, 2, 3, 4, 5])
def test_each_level_prints_its_output_and_not_the_next_levels(
    fresh, monkeypatch, capfd, level
):
    monkeypatch.setenv(debuglevel.ENV, str(level))
    err = _compile_err(capfd)
    for n, mark in MARKS.items():
        assert (mark in err) == (n <= level), (n, mark, err[-3000:])
    if level >= 1:
        assert "object cache miss" in err  # a fresh cache
    if level >= 2:
        assert "fuse-elementwise" in err and "cuvil_k0_" in err  # pass, kernel table
    if level >= 5:
        assert "cuvil_main:" in err  # the entry's label in the assembly


def test_level_1_reports_a_warm_compile_as_a_cache_hit(fresh, monkeypatch, capfd):
    _compile_err(capfd)
    monkeypatch.setenv(debuglevel.ENV, "1")
    err = _compile_err(capfd)
    assert err.count("\n") == 1 and "IR cache hit, object cache hit" in err
    assert all(f"{stage} " in err for stage in ("lower", "passes", "codegen", "llvm"))


def test_the_debug_dir_takes_the_big_dumps(fresh, monkeypatch, capfd):
    monkeypatch.setenv(debuglevel.ENV, "5")
    monkeypatch.setenv(debuglevel.DIR_ENV, str(fresh / "dumps"))
    err = _compile_err(capfd)
    assert MARKS[2] in err and MARKS[3] not in err and MARKS[4] not in err
    (folder,) = (fresh / "dumps").iterdir()
    assert f"debug dumps of Tiny in {folder}" in err
    names = sorted(p.name for p in folder.iterdir())
    assert {"0000-input.cuvilir", "module.ll", "module.s"} <= set(names)
    assert "cuvil_main" in (folder / "module.ll").read_text()


def test_the_context_manager_sets_and_restores_the_level(fresh, monkeypatch, capfd):
    monkeypatch.setenv(debuglevel.ENV, "1")
    assert debuglevel.level() == 1
    with cuvil.debug_level(2):
        assert debuglevel.level() == 2
        with cuvil.debug_level(0):
            assert _compile_err(capfd) == ""
        assert MARKS[2] in _compile_err(capfd)
    assert debuglevel.level() == 1
    with pytest.raises(RuntimeError), cuvil.debug_level(4):
        raise RuntimeError("the level is restored after an exception too")
    assert debuglevel.level() == 1


def test_the_level_is_per_thread(fresh):
    seen = []
    with cuvil.debug_level(3):
        t = threading.Thread(target=lambda: seen.append(debuglevel.level()))
        t.start()
        t.join(timeout=60)
        assert debuglevel.level() == 3
    assert seen == [0]  # the other thread sees the environment's level


@pytest.mark.parametrize("text", ["abc", "6", "-1", "1.5"])
def test_an_invalid_environment_level_fails_the_compile_clearly(
    fresh, monkeypatch, text
):
    monkeypatch.setenv(debuglevel.ENV, text)
    with pytest.raises(cuvil.CuvilError, match=f"CUVIL_DEBUG='{text}' is not a debug"):
        cuvil.compile(Tiny(), [torch.randn(4)])


@pytest.mark.parametrize("bad", [6, -1, "2", True, 1.0])
def test_an_invalid_scoped_level_is_refused(bad):
    with pytest.raises(cuvil.CuvilError, match="must be an int 0..5"):
        with cuvil.debug_level(bad):
            pass
