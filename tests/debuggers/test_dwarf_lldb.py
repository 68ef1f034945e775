"""Stock LLDB 22 on O3 debug builds: the same line breakpoints as test_dwarf_gdb.

    lldb -b -x -o 'settings set plugin.jit-loader.gdb.enable on' ...
         -o 'breakpoint set -f model.py -l L' ... -o run -o 'breakpoint list'
         -o 'bt 3' -o continue ... -- python dwarf_debuggee.py MODEL O3 debug --calls 2

LLDB ignores is_stmt and searches every compile unit for the file, so this checks
that no row of a model line lands outside the kernels (cuvil_main's calls sit in the
generated file, debuginfo.py). The ResNet-18 session is marked ``slow``.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from .conftest import find_debugger
from .dwarf_session import FUSED_MODEL, LLDB_PROLOGUE, MODELS, expect, run

CALLS = 2
STOP = re.compile(
    r"stop reason = breakpoint [\d.]+\n\s*frame #0: 0x[0-9a-f]+ \S+`(\w+)\(.*\) "
    r"at (\S+?):(\d+)(?::\d+)?$",
    re.M,
)


@pytest.fixture(
    scope="module",
    params=[
        pytest.param((FUSED_MODEL, None), id="fused_model"),
        pytest.param(
            (MODELS / "resnet18.py", (39, 48)), id="resnet18", marks=pytest.mark.slow
        ),
    ],
)
def session(request):
    model, lines = request.param
    expected = expect(model)
    lines = tuple(lines or sorted(expected.lines))
    stops = CALLS * sum(len(expected.kernels_of(n)) for n in lines)
    commands = [
        *LLDB_PROLOGUE,
        *(f"breakpoint set -f {expected.file} -l {n}" for n in lines),
        "run",
        "breakpoint list",
        "bt 3",
        *["continue"] * stops,
    ]
    lldb = find_debugger("lldb-22", "lldb")
    output = run([lldb, "-b", "-x"], commands, model, "debug", "--calls", "2")
    return expected, lines, output


def _locations(output: str) -> dict[int, list[tuple[str, str, int]]]:
    """``breakpoint list``: number -> its (function, file, line) locations."""
    found: dict[int, list[tuple[str, str, int]]] = {}
    for number, function, file, line in re.findall(
        r"^\s+(\d+)\.\d+: where = \S+`(\w+) \+ \d+ at (\S+?):(\d+)(?::\d+)?, address",
        output,
        re.M,
    ):
        found.setdefault(int(number), []).append((function, file, int(line)))
    return found


def test_lldb_resolves_a_line_only_to_the_kernels_with_a_node_on_it(session):
    expected, lines, out = session
    locations = _locations(out)
    for number, line in enumerate(lines, start=1):
        found = locations.get(number, [])
        wanted = expected.kernels_of(line)
        assert sorted(f for f, _, _ in found) == sorted(wanted), f"line {line}\n{out}"
        assert {(file, n) for _, file, n in found} == {(expected.file, line)}, out


def test_lldb_stops_once_per_call_and_shows_cuvil_main_at_the_op_line(session):
    expected, lines, out = session
    hits = Counter((f, int(n)) for f, _, n in STOP.findall(out))
    assert dict(hits) == {(k, n): CALLS for n in lines for k in expected.kernels_of(n)}
    first = STOP.search(out).group(1)
    at = rf"`cuvil_main\(inputs=0x[0-9a-f]+, .*\) at {expected.file}:"
    assert re.search(at + rf"{expected.sources[first]}:\d+$", out, re.M), out
    assert "exited with status = 0" in out, out
