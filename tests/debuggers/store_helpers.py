"""Cores and batch debugger sessions for the symbol-store tests (test_store_*.py).

`make_core` crashes the debuggee (crash_store.py) into a core: the kernel writes it
when ``/proc/sys/kernel/core_pattern`` is a plain file name (here: ``core`` in the
debuggee's folder); elsewhere (a pipe to systemd-coredump or apport, an absolute path)
GDB runs the debuggee and writes the core with ``generate-core-file``, which works
everywhere. `gdb_core` / `lldb_core` open a core with or without a store (a folder, or
a debuginfod URL), no init files, and nothing from the network.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
from pathlib import Path

from .conftest import ROOT, find_debugger

PYTHON = str(Path(sys.executable).resolve())
DEBUGGEE = Path(__file__).with_name("crash_store.py")
CORE_PATTERN = Path("/proc/sys/kernel/core_pattern")


def debuggee_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEBUGINFOD_")}
    env["OMP_NUM_THREADS"] = "1"
    env.pop("CUVIL_SYMBOL_STORE", None)
    return env


def _kernel_writes_cores() -> bool:
    try:
        pattern = CORE_PATTERN.read_text().strip()
    except OSError:
        return False
    return bool(pattern) and not pattern.startswith("|") and "/" not in pattern


def make_core(args: list[str], folder: Path) -> tuple[Path, str]:
    """Run ``crash_store.py ARGS`` in `folder` until it crashes: (core, its output)."""
    argv = [sys.executable, str(DEBUGGEE), *args]
    if _kernel_writes_cores():
        proc = subprocess.run(
            argv, cwd=folder, env=debuggee_env(), capture_output=True, text=True,
            timeout=300, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        cores = sorted(p for p in folder.glob("core*") if p.is_file())
        if proc.returncode == -signal.SIGSEGV and cores:
            return cores[0], proc.stdout
    core = folder / "gdb.core"
    gdb = [find_debugger("gdb"), "-batch", "-nx"]
    for c in ("set debuginfod enabled off", "set auto-solib-add off"):
        gdb += ["-iex", c]
    gdb += ["-ex", "run", "-ex", f"generate-core-file {core}", "--args", *argv]
    proc = subprocess.run(
        gdb, cwd=folder, env=debuggee_env(), capture_output=True, text=True,
        timeout=300, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert core.is_file(), f"no core was written:\n{proc.stdout}\n{proc.stderr}"
    return core, proc.stdout


def keys(output: str) -> dict[str, str]:
    """The debuggee's ``cuvil-key: KIND KEY`` lines."""
    return dict(re.findall(r"^cuvil-key: (\w+) ([0-9a-f]+)$", output, flags=re.M))


def _run(argv: list[str], env: dict[str, str]) -> str:
    proc = subprocess.run(
        argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return proc.stdout + proc.stderr


def gdb_core(
    core: Path,
    commands: list[str],
    *,
    store: Path | None = None,
    url: str | None = None,
    cache: Path | None = None,
    solibs: str | None = None,
) -> str:
    """GDB on `core`: `store` as its debug-file-directory, or `url` as its only
    debuginfod server; `solibs`: read only the shared libraries matching it."""
    env = debuggee_env()
    init = [f"set debuginfod enabled {'on' if url else 'off'}"]
    if url:
        env["DEBUGINFOD_URLS"] = url
        env["DEBUGINFOD_CACHE_PATH"] = str(cache)
    if store is not None:
        init.append(f"set debug-file-directory {store}")
    if solibs:
        init.append("set auto-solib-add off")
        commands = [f"sharedlibrary {solibs}", *commands]
    argv = [find_debugger("gdb"), "-batch", "-nx"]
    for c in init:
        argv += ["-iex", c]
    for c in ["set pagination off", *commands]:
        argv += ["-ex", c]
    return _run([*argv, PYTHON, str(core)], env)


def lldb_core(
    core: Path,
    commands: list[str],
    *,
    store: Path | None = None,
    url: str | None = None,
    cache: Path | None = None,
) -> str:
    """LLDB on `core` (no init files: Debian's sets a debuginfod server), `store` in
    its debug-file-search-paths or `url` as its only debuginfod server."""
    env = debuggee_env()
    init = ["settings clear plugin.symbol-locator.debuginfod.server-urls"]
    if url:
        init = [
            f"settings set plugin.symbol-locator.debuginfod.server-urls {url}",
            f"settings set plugin.symbol-locator.debuginfod.cache-path {cache}",
        ]
    if store is not None:
        init.append(f"settings set target.debug-file-search-paths {store}")
    argv = [find_debugger("lldb-22", "lldb"), "-b", "-x"]
    for c in init:
        argv += ["-O", c]
    argv += ["-c", str(core), PYTHON]
    for c in commands:
        argv += ["-o", c]
    return _run(argv, env)


def located_frames(output: str, file: str) -> list[tuple[str, int]]:
    """(function, line) of each backtrace frame that is ``at FILE:LINE`` (GDB's and
    LLDB's formats)."""
    # a kernel frame may carry the cuvil frame filter's label: NAME [node: op shape]
    gdb = rf"^#\d+\s+(?:0x[0-9a-f]+ in )?(\w+)(?: \[[^\]]*\])? \(.*\) at {re.escape(file)}:(\d+)$"
    # (LLDB prints no parentheses for a function without argument variables)
    lldb = rf"frame #\d+: 0x[0-9a-f]+ \S+`(\w+)(?:\(.*\))? at {re.escape(file)}:(\d+)"
    found = re.findall(gdb, output, flags=re.M) + re.findall(lldb, output)
    return [(fn, int(line)) for fn, line in found]


def kernel_frames(output: str) -> list[str]:
    """The Cuvil kernels in a backtrace, with or without symbols for them."""
    # (GDB's frames may carry the cuvil frame filter's label: NAME [node: op shape])
    return re.findall(r"\b(cuvil_k\d+_\w+?)\b(?: \[[^\]]*\])?(?: \(|\(| \+)", output)


class Server:
    """``cuvil-debug symbols serve`` in a child process; `url` once it listens."""

    def __init__(self, store: Path) -> None:
        env = debuggee_env()
        argv = [sys.executable, "-m", "cuvil_debug.cli", "symbols", "serve"]
        self.proc = subprocess.Popen(
            [*argv, "--store", str(store), "--port", "0"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        ready, _, _ = select.select([self.proc.stdout], [], [], 120)
        self.url = self.proc.stdout.readline().strip() if ready else ""
        if not self.url.startswith("http://127.0.0.1:"):
            self.proc.kill()
            raise AssertionError(f"the server did not start: {self.proc.stderr.read()}")

    def stop(self) -> tuple[int, str]:
        """SIGTERM; (exit status, its stderr: one line per request)."""
        self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=30)
        return self.proc.returncode, err


def assert_symbolised(out: str, lines: dict[str, int], file: str) -> None:
    """Some frame is ``at FILE:N``; a kernel at its op's line (`lines`: the manifest's
    line per kernel symbol), cuvil_main at the line of the op it calls."""
    located = located_frames(out, file)
    assert located, f"no frame at {file}:N\n{out}"
    for fn, line in located:
        expected = lines.get(fn) if fn.startswith("cuvil_k") else line
        assert expected == line and line in lines.values(), f"{fn} at {line}: {lines}"


def through_server(store: Path, key: str, run) -> str:
    """`run(url)` with ``cuvil-debug symbols serve`` on `store`; checks that it served
    `key`'s debug file and stopped cleanly. Returns what `run` returned."""
    server = Server(store)
    try:
        out = run(server.url)
    finally:
        status, log = server.stop()
    assert f'GET /buildid/{key}/debuginfo HTTP/1.1" 200' in log, log
    assert status == 0, log[:400]
    return out
