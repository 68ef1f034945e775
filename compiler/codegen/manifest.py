"""The debug manifest: what every kernel of a build computes, in the build itself.

Every object code generation produces (JIT object, AOT library; release builds too)
carries one read-only global ``cuvil_manifest`` in the section ``.cuvil.manifest``: the
UTF-8 JSON of `build_manifest`, zlib-compressed behind a 16-byte header (`HEADER`: magic,
version, compressed and plain sizes), so a debugger reads it from a live process or a
core dump (the symbol) and pyelftools from a file (the section;
``cuvil.runtime.manifest.read_manifest``). Compressed, it is ~2% of a library (plain JSON
was ~22% of ResNet-18's). The format is in docs/DEBUGGING.md.
"""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any

from llvmlite import ir

from ..ir import ops
from ..ir.core import Function, Module, Operation, Value
from ..ir.ops.fused import body_of
from ..ir.printer import format_op
from ..ir.types import TensorType
from .buffers import Buffers, Slot
from .kernel import physical_strides
from .lower_op import Lowering

__all__ = [
    "FORMAT",
    "VERSION",
    "SECTION",
    "SYMBOL",
    "HEADER",
    "MAGIC",
    "build_manifest",
    "emit_manifest",
    "encode_manifest",
]

FORMAT = "cuvil.manifest"
VERSION = 2
SECTION = ".cuvil.manifest"
SYMBOL = "cuvil_manifest"
MAGIC = b"CUVM"
HEADER = struct.Struct("<4sIII")  # magic, version, compressed bytes, JSON bytes


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


IR_CHARS = 240  # an op's IR text is cut here (a fused op's body is in `members`)


def _ir_text(op: Operation) -> str:
    text = format_op(op).split(" loc(")[0]
    return text if len(text) <= IR_CHARS else text[: IR_CHARS - 1] + "…"


def _members(module: Module, op: Operation) -> list[dict[str, Any]]:
    """The ops a ``cuvil.fused`` kernel computes, in order: op, FX node, source."""
    if not isinstance(op, ops.FusedOp):
        return []
    return [
        {
            "op": member.name,
            "nodes": list(member.loc.nodes),
            "value": member.results[0].name if member.results else None,
            "source": member.loc.source(),
            "ir": _ir_text(member),
        }
        for member in body_of(module, op).ops
    ]


def _kernels(
    module: Module, lowering: Lowering, buffers: Buffers
) -> list[dict[str, Any]]:
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
                "ir": _ir_text(op),
                "members": _members(module, op),
                "args": [_arg(r, it, buffers) for r, it in zip(roles, items)],
            }
        )
    return kernels


_PLACED = {ops.ParamOp: "param", ops.ConstantOp: "constant", ops.ReshapeOp: "alias"}


def _sites(module: Module, fn: Function, kernel_of: dict[int, str]):
    """Value name -> (status, kernel symbol, the main-function value or None)."""
    sites: dict[str, tuple[str, str | None, Value | None]] = {}
    for a in fn.args:
        sites[a.name] = ("input", None, a)
    for op in fn.ops:
        status = "kernel" if id(op) in kernel_of else _PLACED.get(type(op), "alias")
        for r in op.results:
            sites[r.name] = (status, kernel_of.get(id(op)), r)
        if isinstance(op, ops.FusedOp):
            for member in body_of(module, op).ops:
                for r in member.results:
                    sites.setdefault(r.name, ("fused", kernel_of[id(op)], None))
    return sites


def _folded_into(node: str, fn: Function, kernel_of: dict[int, str]) -> str | None:
    """The kernel whose op names `node` in its location (a relayout last: it only
    carries the location of the op it prepares)."""
    named = [op for op in fn.ops if id(op) in kernel_of and node in op.loc.nodes]
    named.sort(key=lambda op: isinstance(op, ops.RelayoutOp))
    return kernel_of[id(named[0])] if named else None


def _nodes(
    module: Module, fn: Function, lowering: Lowering, buffers: Buffers
) -> dict[str, dict[str, Any]]:
    """Per FX node: where its value went (docs/DEBUGGING.md, "nodes")."""
    kernel_of = {id(op): sym for sym, op in lowering.op_of.items()}
    sites = _sites(module, fn, kernel_of)
    out: dict[str, dict[str, Any]] = {}
    for node, v in module.fx_values.items():
        if isinstance(v, (tuple, list)) and v and isinstance(v[0], Value):
            v = v[0]  # a multi-result node (max, batch norm): its first result
        if not isinstance(v, Value):
            continue  # a Python value at trace time: no tensor
        status, kernel, value = sites.get(v.name, ("removed", None, None))
        if status == "removed" and (into := _folded_into(node, fn, kernel_of)):
            status, kernel = "folded", into
        if status == "alias" and value is not None:  # a view: its root's kernel
            kernel = sites.get(buffers.root(value).name, (None, None))[1]
        entry: dict[str, Any] = {"status": status, "kernel": kernel, "value": v.name}
        if value is not None:
            entry.update(_tensor(value.type), slot=_slot(buffers.slot(value)))
        out[node] = entry
    return out


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
        "kernels": _kernels(module, lowering, buffers),
        "nodes": _nodes(module, fn, lowering, buffers),
    }


def encode_manifest(manifest: dict[str, Any]) -> bytes:
    """The section's bytes: `HEADER`, then the zlib stream of the compact JSON."""
    text = json.dumps(manifest, separators=(",", ":")).encode()
    packed = zlib.compress(text, 9)
    return HEADER.pack(MAGIC, VERSION, len(packed), len(text)) + packed


def emit_manifest(llmod: ir.Module, manifest: dict[str, Any]) -> None:
    """`manifest` as the global ``cuvil_manifest`` in the section ``.cuvil.manifest``."""
    data = encode_manifest(manifest)
    ty = ir.ArrayType(ir.IntType(8), len(data))
    g = ir.GlobalVariable(llmod, ty, SYMBOL)
    g.initializer = ir.Constant(ty, bytearray(data))
    g.global_constant = True
    g.section = SECTION
    g.align = 1
