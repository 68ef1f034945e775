"""Stock LLDB stops in JIT-compiled kernels and shows the model's file and line.

Commands (batch mode, no init files):

    lldb -b -x -o 'settings set plugin.jit-loader.gdb.enable on'
         -o 'settings set target.preload-symbols false'
         -o 'breakpoint set -n <kernel symbol>' -o 'breakpoint set -f mlp.py -l <line>'
         -o run -o 'bt 1' -o 'frame variable' -o continue ...
         -- python run_model.py mlp.py O0 O2

LLDB 22 on Linux reads the GDB JIT interface only with the jit-loader setting on, and
spends ~0.2 s per JIT object unless symbols are loaded lazily (DEBUGGERS.md, trap 4).
"""

from __future__ import annotations

import re

import pytest

from .conftest import OPT_LEVELS, BreakPlan, find_debugger, run_debugger, runs


@pytest.fixture(scope="module")
def lldb_output(plan: BreakPlan) -> str:
    """One LLDB session over the debuggee (O0 then O2), shared by the tests below."""
    lldb = find_debugger("lldb", "lldb-22")
    stop = ["bt 1", "frame variable", "continue"]
    commands = [
        "settings set plugin.jit-loader.gdb.enable on",
        "settings set target.preload-symbols false",
        "settings set symbols.enable-external-lookup false",
        f"breakpoint set -n {plan.symbol}",
        f"breakpoint set -f {plan.file} -l {plan.line}",
        "run",
        *stop * (plan.stops_per_run() * len(OPT_LEVELS)),
    ]
    argv = [lldb, "-b", "-x"]
    for c in commands:
        argv += ["-o", c]
    return run_debugger([*argv, "--"])


def _frames(part: str) -> list[str]:
    """The frame of each stop in one run: ``symbol(args) at file:line:col``."""
    stop = (
        r"^Process \d+ stopped\n\* thread .*\n\s*frame #0: 0x[0-9a-f]+ JIT\(\S+\)`(.*)$"
    )
    return re.findall(stop, part, flags=re.M)


def test_lldb_breaks_on_kernel_symbol_and_model_line_at_O0_and_O2(plan, lldb_output):
    out = lldb_output
    parts = runs(out)
    assert len(parts) == len(OPT_LEVELS), f"the debuggee did not finish:\n{out}"
    for opt, part in zip(OPT_LEVELS, parts):
        frames = _frames(part)
        at_symbol = [f for f in frames if f.startswith(f"{plan.symbol}(")]
        at_line = [f for f in frames if f" at {plan.file}:{plan.line}:" in f]
        assert len(at_symbol) == 1, f"{opt}: symbol breakpoint not hit once\n{out}"
        assert f" at {plan.file}:{plan.symbol_line}:" in at_symbol[0], out
        assert [f.split("(")[0] for f in at_line] == list(plan.line_symbols), out
    assert "exited with status = 0" in out, out


def test_lldb_shows_kernel_arguments_as_typed_tensor_pointers(plan, lldb_output):
    for part in runs(lldb_output):
        assert re.search(
            rf"^\(float \*\) {plan.result_name} = 0x[0-9a-f]+", part, flags=re.M
        ), lldb_output
