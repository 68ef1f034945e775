"""What the commands compute: where a frame is, a tensor's pointer, a crash's verdict.

Functions over builds (builds.py), an `Adapter` and the manifest; session.py only parses
and dispatches.
"""

from __future__ import annotations

import fnmatch
import os
import struct
from dataclasses import dataclass
from typing import Any

from .adapter import Adapter, FrameInfo, entry_arguments
from .builds import Build, KernelSite
from .tensors import TensorView

__all__ = ["Here", "locate", "where", "describe_kernel", "kernel_table", "backtrace"]

STEP_PREFIX = "cuvil_step_"
CALL_SCOPE = "cuvil_call_"  # cuvil_call_<i>: an inlined scope around call i (DWARF)
TRAMPOLINES = ("ffi_call", "_ctypes", "libffi", "PyCFuncPtr_call")


@dataclass
class Here:
    """The frame a command is about: a kernel's, or cuvil_main's between kernels."""

    build: Build
    kernel: KernelSite | None
    frame: int
    pc: int
    phase: str  # before | after | inside | main
    info: FrameInfo


def entry_args(adapter: Adapter, n: int) -> list[int]:
    return entry_arguments(adapter, n)


def _is_entry(build: Build, name: str | None) -> bool:
    return bool(name) and (
        name == build.manifest.get("entry") or name.startswith(STEP_PREFIX)
    )


def return_sites(adapter: Adapter, build: Build) -> dict[str, list[int]]:
    """Kernel symbol -> the return addresses of its calls in the entry and the steps.

    x86-64 only. Two call forms occur: ``call rel32`` (E8; AOT libraries, small code
    model; to the kernel, or to its PLT entry where it is exported) and, in JIT code
    (large code model), ``movabs $kernel, %reg`` followed by ``call *%reg``. A kernel's
    address as an immediate or a call target is exact enough: anything else matching it
    by chance would have to equal a kernel's first byte."""
    cached = getattr(build, "_return_sites", None)
    if cached:
        return cached
    if build.call_fields:
        out = _from_relocations(adapter, build)
    else:
        starts = {k.start: k.symbol for k in build.kernels.values()}
        starts |= {stub: name for name, stub in build.plt.items()}
        out = {}
        for name, (addr, size) in build.symbols.items():
            if _is_entry(build, name) and size > 0:
                code = adapter.read(addr, size)
                for offset, symbol in _calls(code, addr, starts):
                    out.setdefault(symbol, []).append(addr + offset)
    build._return_sites = out  # type: ignore[attr-defined]
    return out


R_X86_64_64, R_X86_64_PC32, R_X86_64_PLT32 = 1, 2, 4


def _from_relocations(adapter: Adapter, build: Build) -> dict[str, list[int]]:
    """Return sites from a JIT object's relocations: ``call rel32`` (PC32/PLT32) returns
    4 bytes after its field; ``movabs $kernel, %reg`` (64) is followed by ``call *%reg``."""
    out: dict[str, list[int]] = {}
    for symbol, fields in build.call_fields.items():
        for addr, kind in fields:
            if kind in (R_X86_64_PC32, R_X86_64_PLT32):
                out.setdefault(symbol, []).append(addr + 4)
            elif kind == R_X86_64_64:
                code = adapter.read(addr - 2, 2 + 8 + 96 + 3)
                rex, op = code[0], code[1]
                if rex in (0x48, 0x49) and 0xB8 <= op <= 0xBF:
                    reg = (op - 0xB8) | (8 if rex == 0x49 else 0)
                    after = _indirect_call(code, 10, reg)
                    if after is not None:
                        out.setdefault(symbol, []).append(addr - 2 + after)
    return out


def _calls(code: bytes, addr: int, starts: dict[int, str]):
    """(offset after the call, kernel symbol) for each kernel call in `code`."""
    for i in range(len(code) - 4):
        if code[i] == 0xE8:
            (rel,) = struct.unpack_from("<i", code, i + 1)
            if addr + i + 5 + rel in starts:
                yield i + 5, starts[addr + i + 5 + rel]
        rex, op = code[i], code[i + 1] if i + 1 < len(code) else 0
        if rex in (0x48, 0x49) and 0xB8 <= op <= 0xBF and i + 10 <= len(code):
            (imm,) = struct.unpack_from("<Q", code, i + 2)
            if imm in starts:
                reg = (op - 0xB8) | (8 if rex == 0x49 else 0)
                after = _indirect_call(code, i + 10, reg)
                if after is not None:
                    yield after, starts[imm]


def _indirect_call(code: bytes, start: int, reg: int, window: int = 96) -> int | None:
    """The offset after the first ``call *%reg`` at or after `start`."""
    want = (
        bytes([0x41, 0xFF, 0xD0 + reg - 8]) if reg >= 8 else bytes([0xFF, 0xD0 + reg])
    )
    j = code.find(want, start, start + window + len(want))
    while j >= 0 and reg < 8 and j > 0 and code[j - 1] == 0x41:  # that is r8+'s form
        j = code.find(want, j + 1, start + window + len(want))
    return j + len(want) if j >= 0 else None


def locate(builds: list[Build], frames: list[FrameInfo], stop) -> Here | None:
    """The innermost frame in Cuvil code: a kernel (or a helper it called), or the
    entry between kernels."""
    for i, f in enumerate(frames):
        build = next((b for b in builds if b.contains(f.pc)), None)
        if build is None:
            continue
        kernel = build.kernel_at(f.pc, f.function)
        if kernel is not None:
            phase = "before" if i == 0 and f.pc == kernel.start else "inside"
            return Here(build, kernel, i, f.pc, phase, f)
        if not _is_entry(build, f.function) and build.kernel_at(f.pc) is None:
            name = _symbol_at(build, f.pc)
            if name is None or not _is_entry(build, name):
                continue  # a GEMM helper: its kernel is further out
        if (
            stop is not None
            and stop.build is build
            and stop.phase == "after"
            and i == 0
        ):
            return Here(build, stop.kernel, 0, f.pc, "after", f)
        return Here(build, _returned_from(build, f.pc), i, f.pc, "main", f)
    return None


def _symbol_at(build: Build, pc: int) -> str | None:
    return next(
        (n for n, (a, s) in build.symbols.items() if a <= pc < a + max(s, 1)), None
    )


def _returned_from(build: Build, pc: int) -> KernelSite | None:
    sites = getattr(build, "_return_sites", {}) or {}
    best = max(
        ((ret, sym) for sym, rets in sites.items() for ret in rets if ret <= pc),
        default=None,
    )
    return build.kernels.get(best[1]) if best else None


# ---- text --------------------------------------------------------------------------
def _result(kernel: KernelSite) -> dict[str, Any] | None:
    return next(
        (a for a in kernel.info.get("args", []) if a.get("role") == "out"), None
    )


def tensor_label(arg: dict[str, Any]) -> str:
    """``name <1x16x32x32 f32 nhwc>`` for one manifest argument."""
    name = arg.get("value") or arg.get("role", "arg")
    if "shape" not in arg:
        return f"{name} <{arg.get('slot', {}).get('kind', 'scratch')}>"
    layout = "" if arg.get("layout") == "contiguous" else f" {arg.get('layout')}"
    dims = "x".join(map(str, arg["shape"])) or "scalar"
    return f"{name} <{dims} {arg.get('dtype')}{layout}>"


def kernel_label(kernel: KernelSite) -> str:
    """``block1_relu: cuvil.fused 1x16x32x32 nhwc`` (a frame's label)."""
    out = _result(kernel)
    shape = tensor_label(out).split(" ", 1)[1] if out else ""
    return f"{', '.join(kernel.nodes) or '-'}: {kernel.info.get('op')} {shape}".rstrip()


def describe_kernel(build: Build, kernel: KernelSite) -> str:
    info, out = kernel.info, _result(kernel)
    node = out.get("value") if out else None
    shape = f" {TensorView.of(out).describe()}" if out and "shape" in out else ""
    members = [m.get("op", "?").removeprefix("cuvil.") for m in info.get("members", [])]
    op = info.get("op") + (f": {' -> '.join(members)}" if members else "")
    n_calls = len(build.manifest.get("kernels", []))
    return (
        f"{kernel.symbol}: {node or '-'} [{op}]{shape} at {info.get('source') or '?'} "
        f"(call {info.get('call')} of {n_calls}, {build.name})"
    )


def kernel_table(builds: list[Build], pattern: str | None) -> str:
    lines = []
    for build in builds:
        rows = [k for k in build.kernels.values() if _matches(k, pattern)]
        lines.append(
            f"{build.name} ({build.origin}, key {build.key or '-'}): {len(rows)} kernels"
        )
        for k in sorted(rows, key=lambda k: k.info.get("call", 0)):
            nodes = ",".join(k.nodes) or "-"
            lines.append(
                f"  {k.start:#014x} {k.symbol:<32} {k.info.get('op'):<24} "
                f"{nodes:<40} {k.info.get('source') or '?'}"
            )
    return "\n".join(lines)


def _matches(kernel: KernelSite, pattern: str | None) -> bool:
    if not pattern:
        return True
    words = [kernel.symbol, kernel.info.get("op", ""), *kernel.nodes]
    words += [m.get("op", "") for m in kernel.info.get("members", [])]
    glob = pattern if any(c in pattern for c in "*?[") else f"*{pattern}*"
    return any(fnmatch.fnmatch(w.lower(), glob.lower()) for w in words)


def where(here: Here) -> str:
    build, kernel = here.build, here.kernel
    if here.phase == "main":
        last = (
            f"after {kernel.symbol} ({', '.join(kernel.nodes)})"
            if kernel
            else "before the first kernel"
        )
        return f"in {here.info.function or 'cuvil_main'} of {build.name}, {last}"
    assert kernel is not None
    info = kernel.info
    lines = [
        f"node:   {', '.join(kernel.nodes) or '-'}",
        f"op:     {info.get('op')}",
        f"ir:     {info.get('ir', '')}",
        f"source: {info.get('source') or '?'}",
        f"kernel: {describe_kernel(build, kernel)} [{here.phase}]",
    ]
    at = (os.path.basename(here.info.file), here.info.line) if here.info.file else None
    for m in info.get("members", []):
        src = (m.get("source") or "").split(":")
        mark = (
            "  <- this line"
            if at and len(src) > 1 and (os.path.basename(src[0]), _int(src[1])) == at
            else ""
        )
        lines.append(
            f"  member {m.get('op')} {','.join(m.get('nodes', []))} at {m.get('source')}{mark}"
        )
    return "\n".join(lines)


def _int(text: str) -> int | None:
    return int(text) if text.isdigit() else None


def backtrace(adapter: Adapter, builds: list[Build]) -> str:
    """Frames innermost first: kernels labelled with node, op and shape; the entry with
    its model line; ctypes/libffi trampolines folded; Python frames where they load."""
    lines, hidden, python_done = [], 0, False
    for i, f in enumerate(adapter.frames()):
        if f.pc == 0:
            break  # the unwinder lost the chain
        if (f.function or "").startswith(CALL_SCOPE):
            continue  # the artificial scope of one call in cuvil_main
        build = next((b for b in builds if b.contains(f.pc)), None)
        where = f" at {os.path.basename(f.file)}:{f.line}" if f.file and f.line else ""
        if build is not None:
            kernel = build.kernel_at(f.pc, f.function)
            label = (
                describe_kernel(build, kernel)
                if kernel
                else f"{f.function or _symbol_at(build, f.pc)} [{build.name}]"
            )
            lines.append(f"#{i:<3} {label}{where}")
            continue
        name = f.function or "??"
        if any(t in name or t in (f.module or "") for t in TRAMPOLINES):
            hidden += 1
            continue
        if python_done:
            continue  # the interpreter's own frames below the Python stack
        if name.startswith("_PyEval_EvalFrame"):
            python_done = True
            py = adapter.python_backtrace()
            lines.append(
                f"#{i:<3} [python]"
                + (
                    f"\n{py}"
                    if py
                    else " (Python frames: CPython's gdb helpers are not loaded)"
                )
            )
            continue
        if name.startswith(("_PyEval", "_Py", "Py", "method_vectorcall", "cfunction")):
            continue
        lines.append(f"#{i:<3} {name}{where}")
    if hidden:
        lines.append(f"({hidden} ctypes/libffi frames hidden)")
    return (
        "\n".join(lines) if lines else "cuvil: no frames (the program is not running)"
    )
