"""The process-wide thread pool every JIT-compiled model shares (codegen/pool.py).

A module that splits work calls the pool through its global ``cuvil_pool_entry``, which
points at the module's own copy. ``attach(engine)`` repoints it at one pool compiled
once per process and never freed, so:

- all JIT-compiled models share one set of worker threads (no thread per model), and
- no worker ever runs, or sleeps inside, code that belongs to a model's engine: an
  engine can be freed while the pool lives on.

An AOT library keeps its own copy (it is self-contained and never unloaded).
"""

from __future__ import annotations

import ctypes
import threading

import llvmlite.binding as llvm
import llvmlite.ir as ir

from ..codegen.pool import ENTRY_GLOBAL, RUN, emit_pool
from ..codegen.target import init_llvm, optimize, target_machine, target_triple

__all__ = ["attach", "shared_pool"]

_lock = threading.Lock()
_engine: list = []  # the pool's execution engine, alive until the process ends


def shared_pool() -> int:
    """The address of the process-wide ``cuvil_pool_run`` (compiled on first use)."""
    with _lock:
        if not _engine:
            init_llvm()
            module = ir.Module(name="cuvil_pool")
            module.triple = target_triple()
            emit_pool(module, linkage="external")
            mod = llvm.parse_assembly(str(module))
            mod.verify()
            optimize(mod, 2)
            engine = llvm.create_mcjit_compiler(mod, target_machine(2))
            engine.finalize_object()
            _engine.append((engine, engine.get_function_address(RUN)))
        return _engine[0][1]


def attach(engine, program) -> bool:
    """Point the module's pool entry at the shared pool; False when it has none.
    `program.mentions` answers without the LLVM IR text where the IR cache level
    recorded it (a warm compile generates no LLVM IR)."""
    if not program.mentions(ENTRY_GLOBAL):
        return False
    address = engine.get_global_value_address(ENTRY_GLOBAL)
    if not address:
        return False
    ctypes.c_void_p.from_address(address).value = shared_pool()
    return True
