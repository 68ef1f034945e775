"""Shared by the DWARF and break_on tests: what a build's DWARF should say, and one
batch-mode debugger session over ``dwarf_debuggee.py``.

`expect(model)` generates the code in-process (no JIT) at O3 and learns, per model
line, the kernels whose FX nodes (fused members and folded nodes included) sit on
that line: exactly the kernels ``break model.py:LINE`` must resolve to.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from .conftest import run_batch

ROOT = Path(__file__).resolve().parents[2]
DEBUGGEE = Path(__file__).with_name("dwarf_debuggee.py")
MODELS = ROOT / "samples" / "models"
FUSED_MODEL = Path(__file__).with_name("fused_model.py")

GDB_PROLOGUE = [  # fast: only libllvmlite's symbols (the JIT interface), no torch's
    "set debuginfod enabled off",
    "set auto-solib-add off",
    "set breakpoint pending on",
    "set pagination off",
    "catch load llvmlite",
]
GDB_LOADED = ["run", "sharedlibrary llvmlite", "continue"]
LLDB_PROLOGUE = [
    "settings set plugin.jit-loader.gdb.enable on",
    "settings set target.preload-symbols false",
    "settings set symbols.enable-external-lookup false",
]
# "Thread 1 "python" hit Breakpoint 2.3, f (...)" or "Breakpoint 2.3, f (...)"
GDB_STOP = re.compile(
    r'^(?:Thread \d+ "[^"]*" hit )?Breakpoint [\d.]+, (\w+) \(.*\) at (\S+):(\d+)$',
    re.M,
)
SIGTRAP = re.compile(
    r'^(?:Thread \d+ "[^"]*" received|Program received) signal SIGTRAP', re.M
)


@dataclass(frozen=True)
class Expected:
    """What the DWARF of `model`'s O3 build should say."""

    file: str  # the model file's basename, as debuggers print it
    lines: dict[int, tuple[str, ...]]  # model line -> kernels with a node on it
    sources: dict[str, int]  # kernel -> the line of its op (its first source)
    nodes: dict[str, tuple[str, ...]]  # kernel -> its FX nodes

    def kernels_of(self, line: int) -> tuple[str, ...]:
        return self.lines.get(line, ())


def expect(model: Path, opt_level: str = "O3") -> Expected:
    from cuvil.codegen.generator import generate
    from cuvil.frontend import lower
    from cuvil.options import CompileOptions
    from cuvil.passes import run_passes
    from cuvil_debug import load_model

    loaded = load_model(str(model))
    module = lower(loaded.model.eval(), list(loaded.inputs), "fx")
    module = run_passes(module, CompileOptions.parse({"opt_level": opt_level}))
    program = generate(module)
    node_line = {
        part.node: part.line
        for op in module.main.ops
        for part in op.loc.parts
        if part.node and part.file and part.file.endswith(model.name)
    }
    lines: dict[int, list[str]] = {}
    for k in program.kernels:
        for line in dict.fromkeys(node_line[n] for n in k.nodes if n in node_line):
            lines.setdefault(line, []).append(k.symbol)
    return Expected(
        model.name,
        {line: tuple(ks) for line, ks in lines.items()},
        {k.symbol: int(k.source.split(":")[1]) for k in program.kernels if k.source},
        {k.symbol: k.nodes for k in program.kernels},
    )


def run(
    debugger: list[str],
    commands: list[str],
    model: Path,
    build: str,
    *debuggee_args: str,
    opt_level: str = "O3",
    timeout: float = 300,
) -> str:
    """One batch session: `debugger` (``[gdb, -batch, -nx]`` or ``[lldb, -b, -x]``)
    runs `commands` (``-ex`` for GDB, ``-o`` for LLDB) over the debuggee."""
    flag = "-ex" if Path(debugger[0]).name.startswith("gdb") else "-o"
    argv = list(debugger)
    for c in commands:
        argv += [flag, c]
    argv += ["--args"] if flag == "-ex" else ["--"]
    argv += [sys.executable, str(DEBUGGEE), str(model), opt_level, build]
    return run_batch([*argv, *debuggee_args], timeout)


def gdb_locations(output: str) -> dict[int, list[tuple[str, str, int]]]:
    """``info breakpoints``: breakpoint number -> its (function, file, line) locations."""
    found: dict[int, list[tuple[str, str, int]]] = {}
    for one, many, function, file, line in re.findall(
        r"^(?:(\d+)\s+breakpoint\s+keep\s+y|(\d+)\.\d+\s+y)"
        r"\s+0x[0-9a-f]+ in (\S+) at (\S+):(\d+)$",
        output,
        re.M,
    ):
        found.setdefault(int(one or many), []).append((function, file, int(line)))
    return found


def backtraces(output: str) -> list[list[str]]:
    """Each ``bt``'s frames (``#N ...`` lines), in order."""
    traces, current = [], []
    for line in output.splitlines():
        if line.startswith("#0 "):
            if current:
                traces.append(current)
            current = [line]
        elif re.match(r"#\d+ ", line) and current:
            current.append(line)
        elif current and not line.startswith("#"):
            traces.append(current)
            current = []
    return traces + ([current] if current else [])
