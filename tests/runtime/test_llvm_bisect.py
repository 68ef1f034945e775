"""``llvm_bisect_limit``: LLVM's -opt-bisect-limit runs in a child (llvm_worker).

The option is process-global in LLVM and cannot be undone, so this process never sets
it: later compiles print nothing, every bisected compile counts passes from 1, and the
object the child returns is loaded by MCJIT like a cached one (entry, step and profile
symbols).
"""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest
import torch

import cuvil
from cuvil.errors import CodegenError
from cuvil.runtime import llvm_worker
from cuvil.runtime.stepper import Stepper
from cuvil_debug import faults

ROOT = Path(__file__).resolve().parents[2]
TOL = {"rtol": 1e-4, "atol": 1e-5}
LINE = re.compile(r"^BISECT: (NOT )?running pass \((\d+)\) (.*) on (.*)$")
ALL = 2**31 - 1  # a limit above every pass index: all run, all are listed


@pytest.fixture(scope="module")
def mlp():
    ns = runpy.run_path(str(ROOT / "samples" / "models" / "mlp.py"))
    model, xs = ns["Model"]().eval(), tuple(ns["example_inputs"]())
    with torch.no_grad():
        return model, xs, model(*xs)


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch, tmp_path):
    """Normal compiles must run LLVM here (a cache hit would print nothing anyway)."""
    monkeypatch.setenv("CUVIL_CACHE", "0")
    monkeypatch.setenv("CUVIL_CACHE_DIR", str(tmp_path / "cache"))


def _compile(mlp, limit, **options):
    model, xs, _ = mlp
    return cuvil.compile(
        model,
        xs,
        options={"llvm_bisect_limit": limit, **options},
        hooks=faults.hooks(),  # inside a faults.inject block: its faults
    )


def _passes(log: list[str]) -> list[tuple[bool, int, str, str]]:
    """(ran, index, pass, what it ran on) per line; every line must parse."""
    out = []
    for line in log:
        m = LINE.match(line)
        assert m, line
        out.append((m.group(1) is None, int(m.group(2)), m.group(3), m.group(4)))
    return out


def test_a_bisected_compile_leaves_later_compiles_silent(mlp, capfd):
    model, xs, want = mlp
    cm = _compile(mlp, 5)
    passes = _passes(cm.jit.bisect_log)
    assert [i for _, i, _, _ in passes] == list(range(1, len(passes) + 1))
    assert [ran for ran, *_ in passes] == [True] * 5 + [False] * (len(passes) - 5)
    assert not cm.jit.cache_hit
    err = capfd.readouterr().err  # echoed on stderr, where LLVM itself would write
    assert [ln for ln in err.splitlines() if ln.startswith("BISECT:")] == (
        cm.jit.bisect_log
    )
    torch.testing.assert_close(cm(*xs), want, **TOL)

    plain = _compile(mlp, None)
    assert "BISECT" not in capfd.readouterr().err  # fd 2, LLVM's own stderr
    assert plain.jit.bisect_log == []
    torch.testing.assert_close(plain(*xs), want, **TOL)


def test_every_bisected_compile_counts_from_one(mlp):
    first = _compile(mlp, 5).jit.bisect_log
    second = _compile(mlp, 5).jit.bisect_log
    assert first == second and len(first) > 100
    everything = _passes(_compile(mlp, ALL).jit.bisect_log)
    assert all(ran for ran, *_ in everything)
    # the first five passes are the same ones under every limit
    assert [p[1:] for p in everything[:5]] == [p[1:] for p in _passes(first)[:5]]


def test_limit_zero_runs_no_optional_pass(mlp, capfd):
    model, xs, want = mlp
    cm = _compile(mlp, 0)
    passes = _passes(cm.jit.bisect_log)
    assert passes and not any(ran for ran, *_ in passes)
    torch.testing.assert_close(cm(*xs), want, **TOL)
    assert "BISECT: NOT running pass" in capfd.readouterr().err


@pytest.mark.parametrize("limit", [None, ALL, 0])
def test_results_are_right(mlp, limit):
    """The entry from the child's object, and a global's address (profile counters)."""
    model, xs, want = mlp
    cm = _compile(mlp, limit, profile=True, num_threads=2)
    torch.testing.assert_close(cm(*xs), want, **TOL)
    assert sum(c for _, _, c, _ in cm.profile()) > 0


def test_the_overflow_fault_appears_with_early_cse(mlp):
    """kernel:fc3:overflow is right until EarlyCSE folds its compare (docs/FAULTS.md):
    N - 1 is right and N wrong, with N read from a fully listed compile."""
    model, xs, want = mlp
    with faults.inject("kernel:fc3:overflow"):
        listed = _compile(mlp, ALL)
        assert not torch.allclose(listed(*xs), want, **TOL)
        n = next(
            i
            for _, i, name, on in _passes(listed.jit.bisect_log)
            if name == "early-cse" and "fc3" in on
        )
        for limit, right in [(0, True), (n - 1, True), (n, False), (n - 1, True)]:
            got = _compile(mlp, limit)(*xs)
            assert torch.allclose(got, want, **TOL) == right, (limit, n)


def test_step_functions_resolve_from_the_childs_object(mlp):
    model, xs, want = mlp
    module = cuvil.compile(model, xs).module  # after the passes
    st = Stepper(module, bisect_limit=0)
    assert st.jit.bisect_log and not st.jit.cache_hit
    st.bind(*xs)
    (got,) = st.run()
    torch.testing.assert_close(got, want, **TOL)


def test_bisected_objects_are_not_cached(mlp, monkeypatch, tmp_path):
    monkeypatch.setenv("CUVIL_CACHE", "1")
    _compile(mlp, 3)
    assert not list((tmp_path / "cache").rglob("*.o"))
    _compile(mlp, None)  # stored ...
    assert list((tmp_path / "cache").rglob("*.o"))
    again = _compile(mlp, 3)  # ... but not used by a bisected compile
    assert not again.jit.cache_hit and again.jit.bisect_log


def test_a_failing_child_is_a_codegen_error():
    with pytest.raises(CodegenError, match="LLVM worker failed"):
        llvm_worker.compile_object("this is not LLVM IR", 3, 0)
