"""A debug build served by the compile cache is as debuggable as a fresh one.

A first run of the debuggee (no debugger) fills a private cache with the debug builds
at O0 and O2; the GDB session of tests/debuggers/test_gdb.py then runs over builds that
both cache levels serve (the IR level's counters say so: no LLVM IR was generated, the
object with its DWARF came from the object level), and must stop at the same kernel
symbol and model line, once per call, with the same typed arguments.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from .conftest import DEBUGGEE, MODEL, OPT_LEVELS, BreakPlan, find_debugger, runs
from .test_gdb import PROLOGUE, _frames


@pytest.fixture(scope="module")
def warm_session(plan: BreakPlan, tmp_path_factory) -> tuple[str, dict]:
    gdb = find_debugger("gdb")
    cache = tmp_path_factory.mktemp("warm-cache")
    env = {k: v for k, v in os.environ.items() if k != "DEBUGINFOD_URLS"}
    env.update(CUVIL_CACHE_DIR=str(cache), CUVIL_CACHE="1", OMP_NUM_THREADS="1")
    debuggee = [sys.executable, str(DEBUGGEE), str(MODEL), *OPT_LEVELS]
    subprocess.run(debuggee, env=env, check=True, timeout=300, capture_output=True)
    stop = ["bt 1", "info args", "continue"]
    commands = [
        *PROLOGUE,
        f"break {plan.symbol}",
        f"break {plan.file}:{plan.line}",
        "run",
        "sharedlibrary llvmlite",
        "continue",
        *stop * (plan.stops_per_run() * len(OPT_LEVELS)),
    ]
    argv = [gdb, "-batch", "-nx"]
    for c in commands:
        argv += ["-ex", c]
    proc = subprocess.run(
        [*argv, "--args", *debuggee],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    stats = json.loads((cache / "stats.json").read_text())["levels"]
    return proc.stdout + proc.stderr, stats


@pytest.mark.slow  # a debuggee run, then a GDB session over it (~1 min)
def test_gdb_breaks_in_a_warm_debug_build_like_a_cold_one(plan, warm_session):
    out, stats = warm_session
    n = len(OPT_LEVELS)
    assert stats["ir"]["hits"] == n and stats["object"]["hits"] == n, stats
    parts = runs(out)
    assert len(parts) == n, f"the debuggee did not finish:\n{out}"
    for opt, part in zip(OPT_LEVELS, parts):
        frames = _frames(part)
        at_symbol = [f for f in frames if f.startswith(f"{plan.symbol} (")]
        at_line = [f for f in frames if f.endswith(f" at {plan.file}:{plan.line}")]
        assert len(at_symbol) == 1, f"{opt}: symbol breakpoint not hit once\n{out}"
        assert at_symbol[0].endswith(f" at {plan.file}:{plan.symbol_line}"), out
        assert [f.split(" ")[0] for f in at_line] == list(plan.line_symbols), out
        assert f"{plan.result_name} = " in part, out
    assert "exited normally" in out, out
