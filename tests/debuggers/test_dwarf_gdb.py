"""Stock GDB on O3 debug builds: breakpoints on fused members' lines, backtraces.

One GDB session per model (debuggee ``dwarf_debuggee.py MODEL O3 debug --calls 2``):

    gdb -batch -nx <fast prologue> -ex 'break model.py:L' ... -ex run
        -ex 'sharedlibrary llvmlite' -ex continue -ex 'info breakpoints'
        -ex 'frame 2' -ex 'info args' -ex bt -ex continue ...

- ``break model.py:L`` resolves to exactly the kernels with an FX node on line L (a
  fused member's or a folded node's line included), never to another function, and
  each is hit once per call (the stop is in the prologue, before any loop);
- every backtrace has ``cuvil_main (...) at model.py:N``, N the line of the kernel's
  op, and no Cuvil frame without a file:line;
- ``arena`` and the other entry arguments are readable in cuvil_main's frame.

The ResNet-18 session (the BasicBlock ReLU lines 39 and 48) is marked ``slow``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import pytest

from .conftest import find_debugger
from .dwarf_session import (
    FUSED_MODEL,
    GDB_LOADED,
    GDB_PROLOGUE,
    GDB_STOP,
    MODELS,
    Expected,
    backtraces,
    expect,
    gdb_locations,
    run,
)

CALLS = 2


@dataclass(frozen=True)
class Session:
    expected: Expected
    lines: tuple[int, ...]  # the lines broken on, breakpoints 2, 3, ...
    output: str


MODEL_LINES = [
    pytest.param((FUSED_MODEL, None), id="fused_model"),
    pytest.param((MODELS / "small_cnn.py", None), id="small_cnn"),
    pytest.param(
        (MODELS / "resnet18.py", (39, 48)), id="resnet18", marks=pytest.mark.slow
    ),
]


@pytest.fixture(scope="module", params=MODEL_LINES)
def session(request) -> Session:
    model, lines = request.param
    expected = expect(model)
    lines = tuple(lines or sorted(expected.lines))
    stops = CALLS * sum(len(expected.kernels_of(n)) for n in lines)
    commands = [
        *GDB_PROLOGUE,
        *(f"break {expected.file}:{n}" for n in lines),
        *GDB_LOADED,
        "info breakpoints",
        "frame 2",  # kernel, cuvil_call_<i> (inlined), cuvil_main
        "info args",
        "bt",
        *["continue", "bt"] * (stops - 1),
        "continue",
    ]
    gdb = find_debugger("gdb")
    output = run([gdb, "-batch", "-nx"], commands, model, "debug", "--calls", "2")
    return Session(expected, lines, output)


def test_a_line_resolves_only_to_the_kernels_with_a_node_on_it(session):
    out, expected = session.output, session.expected
    locations = gdb_locations(out)
    for number, line in enumerate(session.lines, start=2):  # 1 is the catchpoint
        wanted = expected.kernels_of(line)
        found = locations.get(number, [])
        assert sorted(f for f, _, _ in found) == sorted(wanted), f"line {line}\n{out}"
        assert {(file, n) for _, file, n in found} == {(expected.file, line)}, out


def test_each_kernel_stops_once_per_call_at_each_of_its_lines(session):
    out, expected = session.output, session.expected
    hits = Counter((f, int(n)) for f, file, n in GDB_STOP.findall(out))
    wanted = {(k, n): CALLS for n in session.lines for k in expected.kernels_of(n)}
    assert dict(hits) == wanted, out
    assert "exited normally" in out, out


def test_backtraces_show_cuvil_main_at_the_op_line_and_no_frame_without_a_line(
    session,
):
    out, expected = session.output, session.expected
    traces = backtraces(out)
    assert len(traces) == len(GDB_STOP.findall(out)), out  # one bt per stop
    for frames in traces:
        kernel = _kernel(frames[0])
        main = next((f for f in frames if " cuvil_main (" in f), None)
        at = f" at {expected.file}:{expected.sources[kernel]}"
        assert main is not None and main.endswith(at), frames
        for frame in frames[: frames.index(main) + 1]:  # kernel ... cuvil_main
            assert re.search(r" at \S+:\d+$", frame), frame


def test_entry_arguments_are_readable_in_the_cuvil_main_frame(session):
    out = session.output
    for name in ("inputs", "outputs", "params", "arena"):
        assert f"\n{name} = 0x" in out, out


def _kernel(frame: str) -> str:
    return next(w for w in frame.split() if w.startswith("cuvil_k"))
