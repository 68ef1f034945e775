"""The doctor's checks of the programs around Cuvil: GDB and LLDB (with their Python),
ptrace scope, perf, graphviz, the C compiler AOT links with."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .core import FAIL, OK, WARN, Check, run_program

__all__ = ["gdb", "lldb", "ptrace", "perf", "graphviz", "c_compiler", "LLDB_NAMES"]

LLDB_NAMES = ("lldb", "lldb-22")  # Debian's default, and the LLVM 22 package
DEBIAN_LLDB_TRAP = (
    "install one LLDB family: lldb-22 + python3-lldb-22, or Debian's lldb + "
    "python3-lldb-14, not both (they conflict); with Debian's LLDB 14 also set "
    "PYTHONPATH=/usr/lib/llvm-14/lib/python3.11/dist-packages (/work/shared/DEBUGGERS.md)"
)


def gdb(timeout: float) -> Check:
    path = shutil.which("gdb")
    if path is None:
        return Check(
            "gdb",
            "",
            WARN,
            "gdb is not on PATH",
            "apt-get install gdb (gdb_scripts/ and `cuvil-debug` breakpoints need it)",
            {"path": None},
        )
    version = run_program([path, "--version"], timeout)
    details = {"path": path, "version": version.first_line(), "python": False}
    if version.timed_out:
        return _timed_out("gdb", f"{path} --version", timeout, details)
    probe = run_program([path, "-nx", "-batch", "-ex", "python print(1)"], timeout)
    if probe.timed_out:
        return _timed_out("gdb", "gdb -batch -ex 'python print(1)'", timeout, details)
    details["python"] = probe.ok and probe.output.strip().endswith("1")
    if not details["python"]:
        return Check(
            "gdb",
            "",
            FAIL,
            f"{version.first_line()}: no Python support ({probe.first_line()})",
            "install a gdb built with Python (Debian/Ubuntu: apt-get install gdb, not "
            "gdb-minimal); gdb_scripts/ are Python",
            details,
        )
    return Check("gdb", "", OK, f"{version.first_line()}, with Python", "", details)


def lldb(timeout: float) -> Check:
    path = next((p for p in map(shutil.which, LLDB_NAMES) if p), None)
    if path is None:
        return Check(
            "lldb",
            "",
            WARN,
            f"none of {', '.join(LLDB_NAMES)} is on PATH",
            "apt-get install lldb-22 python3-lldb-22 (lldb_scripts/ need it); "
            + DEBIAN_LLDB_TRAP,
            {"path": None},
        )
    version = run_program([path, "--version"], timeout)
    details = {"path": path, "version": version.first_line(), "python": False}
    if version.timed_out:
        return _timed_out("lldb", f"{path} --version", timeout, details)
    probe = run_program([path, "-b", "-x", "-o", "script print(1)"], timeout)
    if probe.timed_out:
        return _timed_out("lldb", "lldb -b -o 'script print(1)'", timeout, details)
    lines = [line.strip() for line in probe.output.splitlines()]
    details["python"] = probe.ok and "1" in lines
    if not details["python"]:
        return Check(
            "lldb",
            "",
            FAIL,
            f"{version.first_line()}: its Python does not work "
            f"({_lldb_error(probe.output)})",
            DEBIAN_LLDB_TRAP,
            details,
        )
    return Check("lldb", "", OK, f"{version.first_line()}, with Python", "", details)


def _lldb_error(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    named = [line for line in lines if "rror" in line or "No module" in line]
    return (named or lines or ["no output"])[0][:160]


def _timed_out(cid: str, what: str, timeout: float, details: dict) -> Check:
    details["timed_out"] = True
    return Check(
        cid,
        "",
        FAIL,
        f"`{what}` did not answer within {timeout:g} s",
        f"run `{what}` by hand: a hanging {cid} (a broken init file, a "
        f"debuginfod lookup) will hang every debugging session too",
        details,
    )


PTRACE = Path("/proc/sys/kernel/yama/ptrace_scope")


def ptrace(_timeout: float) -> Check:
    if not PTRACE.exists():
        return Check(
            "ptrace", "", OK, "no Yama LSM: a debugger may attach", "", {"scope": None}
        )
    scope = int(PTRACE.read_text().strip() or 0)
    details = {"scope": scope, "file": str(PTRACE)}
    if scope == 0:
        return Check("ptrace", "", OK, "ptrace_scope 0: attach works", "", details)
    if scope == 1:
        return Check(
            "ptrace",
            "",
            OK,
            "ptrace_scope 1: a debugger may run a program, and attach to its own "
            "children only",
            "",
            details,
        )
    return Check(
        "ptrace",
        "",
        WARN,
        f"ptrace_scope {scope}: `gdb -p PID` is refused"
        + (" until reboot" if scope == 3 else " without root"),
        "run the model under the debugger (gdb --args python ...) instead of "
        "attaching, or sudo sysctl kernel.yama.ptrace_scope=1",
        details,
    )


PARANOID = Path("/proc/sys/kernel/perf_event_paranoid")


def perf(timeout: float) -> Check:
    path = shutil.which("perf")
    level = int(PARANOID.read_text().strip()) if PARANOID.exists() else None
    details = {"path": path, "perf_event_paranoid": level, "version": None}
    if path is None:
        return Check(
            "perf",
            "",
            WARN,
            "perf is not on PATH",
            "apt-get install linux-perf (Debian) or linux-tools-$(uname -r) (Ubuntu) "
            "to profile JIT'd kernels",
            details,
        )
    version = run_program([path, "--version"], timeout)
    details["version"] = version.first_line()
    if not version.ok:  # Debian's wrapper: "perf not found for kernel X"
        return Check(
            "perf",
            "",
            WARN,
            f"{path} does not run: {version.first_line() or 'timed out'}",
            "install the perf matching this kernel (linux-perf / linux-tools-$(uname -r))",
            details,
        )
    if level is not None and level > 2:
        return Check(
            "perf",
            "",
            WARN,
            f"{version.first_line()}, but perf_event_paranoid is {level}: "
            "unprivileged profiling is refused",
            "sudo sysctl kernel.perf_event_paranoid=2 (or lower)",
            details,
        )
    return Check(
        "perf",
        "",
        OK,
        f"{version.first_line()}, perf_event_paranoid {level}",
        "",
        details,
    )


def graphviz(timeout: float) -> Check:
    dot = run_program(["dot", "-V"], timeout)
    details = {"path": shutil.which("dot"), "version": dot.first_line() or None}
    if dot.ok:
        return Check("graphviz", "", OK, dot.first_line(), "", details)
    return Check(
        "graphviz",
        "",
        WARN,
        "graphviz's `dot` "
        + ("is not on PATH" if dot.missing else f"does not run: {dot.first_line()}"),
        "apt-get install graphviz (`cuvil-debug graph --format svg/png` needs it; "
        "--format dot works without)",
        details,
    )


def c_compiler(timeout: float) -> Check:
    cc = os.environ.get("CC", "cc")  # what compiler/runtime/aot.py links with
    version = run_program([cc, "--version"], timeout)
    details = {"cc": cc, "path": shutil.which(cc), "version": version.first_line()}
    if version.ok:
        return Check(
            "cc",
            "",
            OK,
            f"{cc}: {version.first_line()} (links AOT libraries)",
            "",
            details,
        )
    why = "is not on PATH" if version.missing else "does not run"
    return Check(
        "cc",
        "",
        FAIL,
        f"C compiler driver '{cc}' {why}",
        "install gcc or clang, or set $CC: cuvil.save() links the shared library with it",
        details,
    )
