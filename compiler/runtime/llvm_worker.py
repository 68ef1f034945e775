"""LLVM's ``-opt-bisect-limit`` in a short-lived child process.

LLVM's opt-bisect state is process-global, and with LLVM 22 (llvmlite 0.50) it cannot
be undone: once set, every later compile in the process prints each pass it counts on
stderr, and the pass counter is never reset. So Cuvil never sets the option in its own
process. A compile with a limit runs here instead::

    result = compile_object(program.llvm_ir, opt=3, limit=28)
    result.object       # the ELF object, loadable by MCJIT like a cached object
    result.bisect_log   # LLVM's "BISECT: [NOT ]running pass (N) NAME on WHAT" lines

The child (``python -S -P llvm_worker.py OPT LIMIT LLVMLITE_DIR``, LLVM IR on stdin,
the object on stdout) imports only llvmlite and ``codegen/target.py`` (loaded by its
path: importing the ``cuvil`` package would import torch), sets the limit (a fresh
counter), optimizes the module exactly as ``JitModule`` does (``optimize(mod, opt)``)
and emits its object code with ``target_machine(opt)`` (the same bytes MCJIT hands its
object cache). LLVM's BISECT lines go to a file (fd 2 redirected in the child), then to
the child's stderr, a pipe the parent reads.
"""

from __future__ import annotations

import os
import sys

# (the child runs this file too: it imports nothing else at the top, to start fast)

__all__ = [
    "WorkerResult",
    "Pending",
    "compile_object",
    "start_object",
    "is_bisect_line",
]

_BISECT_PREFIX = "BISECT: "
_SCRIPT = os.path.abspath(__file__)


def is_bisect_line(line: str) -> bool:
    return line.startswith(_BISECT_PREFIX)


class WorkerResult:
    """What a child compiled: `object` (an ELF object of the optimized module),
    `bisect_log` (LLVM's BISECT lines), `stderr` (its other output: warnings, ...)."""

    __slots__ = ("object", "bisect_log", "stderr")

    def __init__(self, object: bytes, bisect_log: list[str], stderr: str = "") -> None:
        self.object, self.bisect_log, self.stderr = object, bisect_log, stderr


def compile_object(
    llvm_ir: str, opt: int, limit: int | None, light: str | None = None
) -> WorkerResult:
    """Optimize and compile `llvm_ir` at `opt` (0..3) with ``-opt-bisect-limit=limit``
    (None: no limit) in a child process; `light`: the module's light part
    (codegen/lightsplit.py), linked in after the optimization. Raises ``CodegenError``
    if the child fails."""
    return start_object(llvm_ir, opt, limit, light).result()


class Pending:
    """A child compiling in the background; `result()` waits for its object."""

    def __init__(
        self, llvm_ir: str, opt: int, limit: int | None, light: str | None = None
    ) -> None:
        import subprocess
        import threading

        import llvmlite

        # -S (no site: faster) with llvmlite's own folder on the path; -P: not this folder
        site = os.path.dirname(os.path.dirname(os.path.abspath(llvmlite.__file__)))
        arg = "none" if limit is None else str(int(limit))
        cmd = [sys.executable, "-S", "-P", _SCRIPT, str(int(opt)), arg, site]
        self._proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self._out: tuple[bytes, bytes] = (b"", b"")
        # a thread feeds stdin and drains the pipes, so the caller is free meanwhile
        self._thread = threading.Thread(
            target=self._communicate, args=(_stdin(llvm_ir, light),), daemon=True
        )
        self._thread.start()

    def _communicate(self, data: bytes) -> None:
        self._out = self._proc.communicate(data)

    def result(self) -> WorkerResult:
        self._thread.join()
        stdout, stderr = self._out
        err = stderr.decode("utf-8", "replace")
        log, rest = [], []
        for line in err.splitlines():
            (log if is_bisect_line(line) else rest).append(line)
        if self._proc.returncode != 0 or not stdout.startswith(b"\x7fELF"):
            from ..errors import CodegenError

            tail = "\n".join(rest[-6:]) or "(no output)"
            raise CodegenError(
                f"the LLVM worker failed (exit status {self._proc.returncode}): {tail}",
                hint="compile in-process (without llvm_bisect_limit or background "
                "compilation) to see if LLVM fails there too",
            )
        return WorkerResult(stdout, log, "".join(f"{ln}\n" for ln in rest))


def start_object(
    llvm_ir: str, opt: int, limit: int | None = None, light: str | None = None
) -> Pending:
    """Start compiling `llvm_ir` in a child process (see `compile_object`)."""
    return Pending(llvm_ir, opt, limit, light)


def _stdin(llvm_ir: str, light: str | None) -> bytes:
    """The child's input: the module, then a NUL and the light part if any (LLVM IR
    text holds no NUL)."""
    data = llvm_ir.encode()
    return data if light is None else data + b"\0" + light.encode()


# ---- the child -----------------------------------------------------------------


def _load_target():
    """``cuvil.codegen.target`` without importing the cuvil package (and torch)."""
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(os.path.dirname(here), "codegen", "target.py")
    spec = importlib.util.spec_from_file_location("_cuvil_codegen_target", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _log_file():
    if hasattr(os, "memfd_create"):
        return open(os.memfd_create("cuvil-opt-bisect"), "w+b")
    import tempfile

    return tempfile.TemporaryFile()


def _main(argv: list[str]) -> int:
    opt, site = int(argv[0]), argv[2]
    limit = None if argv[1] == "none" else int(argv[1])
    sys.path.append(site)
    llvm_ir, _, light_ir = sys.stdin.buffer.read().decode().partition("\0")
    import llvmlite.binding as llvm

    target = _load_target()
    target.init_llvm()
    out = os.dup(1)
    err = os.dup(2)
    with _log_file() as log:
        # LLVM writes its BISECT lines unbuffered, a few writes per line: to a file,
        # not a pipe (fast); and nothing but the object goes to the real stdout
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            if limit is not None:
                llvm.set_option("cuvil-llvm-worker", f"-opt-bisect-limit={limit}")
            mod = llvm.parse_assembly(llvm_ir)
            mod.verify()
            light = llvm.parse_assembly(light_ir) if light_ir else None
            target.optimize(mod, opt, light)
            data = target.target_machine(opt).emit_object(mod)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(err, 2)
            log.seek(0)
            with os.fdopen(err, "wb") as f:
                f.write(log.read())
    with os.fdopen(out, "wb") as f:
        f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
