"""Names JIT'd code to Linux ``perf``: a line per function in ``/tmp/perf-<pid>.map``.

``perf report`` symbolises samples in anonymous executable memory (where MCJIT puts
its code) through that file, one ``START SIZE NAME`` line (hex) per function: the
convention of V8, the JVM and LuaJIT. LLVM's own ``PerfJITEventListener`` (jitdump)
would do it too, but llvmlite 0.50's libllvmlite is built without ``LLVM_USE_PERF``:
its ``LLVMCreatePerfJITEventListener`` returns NULL, so this module writes the map.

On with ``options={"perf": True}`` or ``CUVIL_PERF=1``: the kernels are then kept out
of line (``generate(perf=True)``), the object is emitted before MCJIT loads it (its
symbol table gives each function's offset and size) and, after the engine finalized,
each function's line is appended to the map. Off, nothing here runs. A kernel's name
carries its op and FX nodes: ``cuvil_k3_fc1 [cuvil.linear fc1]``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ..options import CompileOptions
from .elfinfo import Elf

__all__ = ["enabled", "map_path", "map_lines", "write_map", "kernel_labels", "ENV"]

ENV = "CUVIL_PERF"
_FUNC = 2  # STT_FUNC


def enabled(options: CompileOptions | None) -> bool:
    """``perf`` in the options or ``$CUVIL_PERF`` set to 1."""
    return bool(options and options.debug_options.perf) or os.environ.get(ENV) == "1"


def map_path(pid: int | None = None) -> Path:
    return Path(f"/tmp/perf-{pid or os.getpid()}.map")


def map_lines(
    obj: bytes, address_of: Callable[[str], int], labels: Mapping[str, str]
) -> list[str]:
    """One ``START SIZE NAME`` line per function of the object `obj` as loaded:
    `address_of(name)` is a global function's load address (0: not found); a local
    function lies at its offset from a global one of its section. `labels`: symbol ->
    the name to show (default: the symbol)."""
    funcs = [s for s in Elf(obj).symbol_table() if s.kind == _FUNC and s.size]
    bases: dict[int, int] = {}
    for s in funcs:
        address = address_of(s.name) if s.shndx not in bases else 0
        if address:
            bases[s.shndx] = address - s.value
    lines = []
    for s in sorted(funcs, key=lambda s: (s.shndx, s.value)):
        if s.shndx in bases:
            start = bases[s.shndx] + s.value
            lines.append(f"{start:x} {s.size:x} {labels.get(s.name, s.name)}")
    return lines


def write_map(lines: Sequence[str], path: Path | None = None) -> Path:
    """Append `lines` to this process's map (several modules share one file)."""
    path = path or map_path()
    with open(path, "a", encoding="utf-8") as f:
        f.writelines(f"{line}\n" for line in lines)
    return path


def kernel_labels(kernels, module=None) -> dict[str, str]:
    """symbol -> ``symbol [op node,node]`` for a Program's kernels and, given the
    llvmlite `module`, for the helpers they call (a GEMM shared by equal shapes names
    every caller's nodes: ``cuvil_gemm0_32x256x256 [for fc1,fc2]``)."""
    labels = {
        k.symbol: f"{k.symbol} [{k.op_name} {','.join(k.nodes) or '-'}]"
        for k in kernels
    }
    nodes = {k.symbol: k.nodes for k in kernels}
    callers: dict[str, list[str]] = {}
    for fn in module.functions if module is not None else ():
        for callee in _callees(fn) if fn.name in nodes else ():
            if callee not in nodes and not callee.startswith("llvm."):
                callers.setdefault(callee, []).extend(nodes[fn.name])
    for callee, names in callers.items():
        labels[callee] = f"{callee} [for {','.join(dict.fromkeys(names))}]"
    return labels


def _callees(fn) -> set[str]:
    return {
        list(ins.operands)[-1].name
        for block in fn.blocks
        for ins in block.instructions
        if ins.opcode == "call"
    }
