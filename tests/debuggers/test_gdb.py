"""Stock GDB stops in JIT-compiled kernels and shows the model's file and line.

Commands (batch mode, no init files):

    gdb -batch -nx -ex 'set debuginfod enabled off' -ex 'set auto-solib-add off'
        -ex 'set breakpoint pending on' -ex 'catch load llvmlite'
        -ex 'break <kernel symbol>' -ex 'break mlp.py:<line>'
        -ex run -ex 'sharedlibrary llvmlite' -ex continue
        -ex 'bt 1' -ex 'info args' -ex continue ...
        --args python run_model.py mlp.py O0 O2

``auto-solib-add off`` keeps GDB from reading the symbols of torch's libraries
(seconds); only libllvmlite's are needed, because they hold the GDB JIT interface
(``__jit_debug_register_code``) through which the JIT'd kernels are announced.
"""

from __future__ import annotations

import re

import pytest

from .conftest import OPT_LEVELS, BreakPlan, find_debugger, run_debugger, runs

PROLOGUE = [
    "set debuginfod enabled off",
    "set auto-solib-add off",
    "set breakpoint pending on",
    "set pagination off",
    "catch load llvmlite",
]


@pytest.fixture(scope="module")
def gdb_output(plan: BreakPlan) -> str:
    """One GDB session over the debuggee (O0 then O2), shared by the tests below."""
    gdb = find_debugger("gdb")
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
    return run_debugger([*argv, "--args"])


def _frames(part: str) -> list[str]:
    """The innermost frame of each ``bt 1`` in one run's output."""
    return re.findall(r"^#0\s+(.*)$", part, flags=re.M)


def test_gdb_breaks_on_kernel_symbol_and_model_line_at_O0_and_O2(plan, gdb_output):
    out = gdb_output
    parts = runs(out)
    assert len(parts) == len(OPT_LEVELS), f"the debuggee did not finish:\n{out}"
    for opt, part in zip(OPT_LEVELS, parts):
        frames = _frames(part)
        at_symbol = [f for f in frames if f.startswith(f"{plan.symbol} (")]
        at_line = [f for f in frames if f.endswith(f" at {plan.file}:{plan.line}")]
        # Each breakpoint is hit exactly once per call: the stop is after the prologue
        # and before any loop, so a kernel's loop never re-triggers it.
        assert len(at_symbol) == 1, f"{opt}: symbol breakpoint not hit once\n{out}"
        assert at_symbol[0].endswith(f" at {plan.file}:{plan.symbol_line}"), out
        assert [f.split(" ")[0] for f in at_line] == list(plan.line_symbols), out
    assert "exited normally" in out, out


def test_gdb_shows_kernel_arguments_as_typed_tensor_pointers(plan, gdb_output):
    out = gdb_output
    for part in runs(out):
        assert re.search(
            rf"^{plan.result_name} = \(?(float \*\) )?0x[0-9a-f]+", part, flags=re.M
        ), out
