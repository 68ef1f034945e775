"""Shared setup of the debugger tests: which kernel and which model line to break on.

The tests drive the real GDB and LLDB in batch mode over ``run_model.py`` (a debuggee
that compiles a sample with debug=True at O0 and O2 and calls it). They skip only when
the debugger binary is absent; ``make setup`` installs both.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEBUGGEE = Path(__file__).with_name("run_model.py")
MODEL = ROOT / "samples" / "models" / "mlp.py"
OPT_LEVELS = ("O0", "O2")


@dataclass(frozen=True)
class BreakPlan:
    """A kernel symbol to break on, and a model line (of another kernel) to break on."""

    file: str  # basename of the model file, as debuggers print it
    symbol: str
    symbol_line: int
    result_name: str  # its first argument: the op's result (a debug variable)
    line: int
    line_symbols: tuple[str, ...]  # kernels generated for `line`

    def stops_per_run(self) -> int:
        return 1 + len(self.line_symbols)


def _line(source: str | None) -> int | None:
    if not source or not source.split(":")[0].endswith(MODEL.name):
        return None
    return int(source.split(":")[1])


@pytest.fixture(scope="session")
def plan() -> BreakPlan:
    """Generate the code once here (no JIT) to learn kernel names and their lines."""
    from cuvil.codegen.generator import generate
    from cuvil.frontend import lower
    from cuvil_debug import load_model

    loaded = load_model(str(MODEL))
    kernels = generate(lower(loaded.model.eval(), list(loaded.inputs), "fx")).kernels
    lines = [(_line(k.source), k) for k in kernels]
    lines = [(n, k) for n, k in lines if n is not None]
    assert len({n for n, _ in lines}) >= 2, "the sample needs kernels on two lines"
    last = lines[-1][0]
    first = next(k for n, k in lines if n != last)
    return BreakPlan(
        file=MODEL.name,
        symbol=first.symbol,
        symbol_line=_line(first.source),
        result_name=first.nodes[0],
        line=last,
        line_symbols=tuple(k.symbol for n, k in lines if n == last),
    )


def find_debugger(*names: str) -> str:
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip(f"none of {names} is installed (make setup installs it)")


def debugger_env() -> dict[str, str]:
    """The environment of a debugger session: no network symbols, few threads."""
    env = {k: v for k, v in os.environ.items() if k != "DEBUGINFOD_URLS"}
    env["OMP_NUM_THREADS"] = "1"  # fewer threads: fewer debugger events
    return env


def run_batch(argv: list[str], timeout: float = 300) -> str:
    """Run one batch-mode debugger command line; returns stdout+stderr."""
    proc = subprocess.run(
        argv,
        cwd=ROOT,
        env=debugger_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    return proc.stdout + proc.stderr


def run_debugger(argv: list[str], timeout: float = 120) -> str:
    """Run a batch-mode debugger command over the debuggee; returns stdout+stderr."""
    debuggee = [sys.executable, str(DEBUGGEE), str(MODEL), *OPT_LEVELS]
    return run_batch([*argv, *debuggee], timeout)


def runs(output: str) -> list[str]:
    """The output split at the debuggee's ``cuvil-run: <opt>`` lines, one per run."""
    parts, current = [], []
    for line in output.splitlines():
        if line.startswith("cuvil-run: "):
            parts.append("\n".join(current))
            current = []
        else:
            current.append(line)
    return parts
