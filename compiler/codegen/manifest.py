"""The debug manifest: what every kernel of a build computes, in the build itself.

Every object code generation produces (JIT object, AOT library; release builds too)
carries one read-only global ``cuvil_manifest`` in the section ``.cuvil.manifest``: the
UTF-8 JSON of `build_manifest`, NUL-terminated, so a debugger reads it from a live
process or a core dump (the symbol) and pyelftools from a file (the section;
``cuvil.runtime.manifest.read_manifest``). The format is in docs/DEBUGGING.md.
"""

from __future__ import annotations

import json
from typing import Any

from llvmlite import ir

from ..ir.core import Function, Module, Value
from ..ir.types import TensorType
from .buffers import Buffers, Slot
from .kernel import physical_strides
from .lower_op import Lowering

__all__ = ["FORMAT", "VERSION", "SECTION", "SYMBOL", "build_manifest", "emit_manifest"]

FORMAT = "cuvil.manifest"
VERSION = 1
SECTION = ".cuvil.manifest"
SYMBOL = "cuvil_manifest"


def _tensor(t: TensorType) -> dict[str, Any]:
    strides = physical_strides(t) if t.layout in ("contiguous", "nhwc", "nwc") else None
    return {
        "shape": [int(d) for d in t.shape],
        "dtype": t.dtype.value,
        "layout": t.layout,
        "strides": list(strides) if strides is not None else None,
    }


def _slot(slot: Slot) -> dict[str, Any]:
    return {"kind": slot.kind, "index": slot.index}


def _arg(role: str, item: Value | Slot, buffers: Buffers) -> dict[str, Any]:
    if isinstance(item, Slot):  # scratch or a derived constant: no IR value
        return {"role": role, "slot": _slot(item)}
    return {
        "role": role,
        "value": item.name,
        **_tensor(item.type),
        "slot": _slot(buffers.slot(item)),
    }


def _roles(n_out: int, n_in: int, n: int) -> list[str]:
    """A kernel's arguments in order: results, operands, then scratch and derived."""
    return ["out"] * n_out + ["in"] * n_in + ["extra"] * (n - n_out - n_in)


def _kernels(lowering: Lowering, buffers: Buffers) -> list[dict[str, Any]]:
    kernels = []
    for info in lowering.kernels:
        _, items = lowering.calls[info.call_index]
        op = lowering.op_of[info.symbol]
        roles = _roles(len(op.results), len(op.operands), len(items))
        kernels.append(
            {
                "symbol": info.symbol,
                "op": info.op_name,
                "nodes": list(info.nodes),
                "source": info.source,
                "call": info.call_index,
                "args": [_arg(r, it, buffers) for r, it in zip(roles, items)],
            }
        )
    return kernels


def build_manifest(
    module: Module,
    fn: Function,
    lowering: Lowering,
    buffers: Buffers,
    arena_bytes: int,
) -> dict[str, Any]:
    """The manifest of one build (docs/DEBUGGING.md): kernels with their ops, FX nodes,
    source and arguments; the entry's inputs and outputs; the arena. The same with and
    without steps: step ``cuvil_step_<i>`` is call `i`, the kernel whose ``call`` is i."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "module": module.name,
        "entry": "cuvil_main",
        "inputs": [_tensor(a.type) for a in fn.args],
        "outputs": [_tensor(t) for t in fn.result_types],
        "params": list(buffers.params),
        "arena_bytes": arena_bytes,
        "kernels": _kernels(lowering, buffers),
    }


def emit_manifest(llmod: ir.Module, manifest: dict[str, Any]) -> None:
    """`manifest` as the NUL-terminated global ``cuvil_manifest`` in ``.cuvil.manifest``."""
    data = json.dumps(manifest, separators=(",", ":")).encode() + b"\0"
    ty = ir.ArrayType(ir.IntType(8), len(data))
    g = ir.GlobalVariable(llmod, ty, SYMBOL)
    g.initializer = ir.Constant(ty, bytearray(data))
    g.global_constant = True
    g.section = SECTION
    g.align = 1
