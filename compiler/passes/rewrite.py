"""Small IR rewriting helpers the passes share: replace values, insert, clone, new names."""

from __future__ import annotations

from collections.abc import Sequence

from ..ir.core import Function, Module, Operation, Value

__all__ = [
    "replace_value",
    "insert_before",
    "clone_op",
    "fresh_function_name",
    "fresh_param_name",
    "is_output",
    "users",
]


def replace_value(fn: Function, old: Value, new: Value) -> None:
    """Every use of `old` (ops and the function's returns) now uses `new`."""
    old.replace_all_uses_with(new)
    fn.outputs = [new if v is old else v for v in fn.outputs]


def insert_before(fn: Function, anchor: Operation, op: Operation) -> Operation:
    fn.ops.insert(fn.ops.index(anchor), op)
    return op


def clone_op(op: Operation, operands: Sequence[Value]) -> Operation:
    """A copy of `op` (attributes, types, location, names) over other operands."""
    copy = type(op)(
        operands,
        dict(op.attrs),
        [r.type for r in op.results],
        op.loc,
        [r.name for r in op.results],
    )
    if hasattr(op, "declared_type"):
        copy.declared_type = op.declared_type
    return copy


def is_output(fn: Function, v: Value) -> bool:
    return any(o is v for o in fn.outputs)


def users(v: Value) -> list[Operation]:
    """The distinct ops using `v`, in no particular order."""
    seen: dict[int, Operation] = {}
    for op, _ in v.uses:
        seen[id(op)] = op
    return list(seen.values())


def fresh_function_name(module: Module, base: str) -> str:
    taken = {f.name for f in module.functions}  # one sweep, not a lookup per number
    i = 0
    while f"{base}_{i}" in taken:
        i += 1
    return f"{base}_{i}"


def fresh_param_name(module: Module, base: str) -> str:
    name, i = base, 1
    while name in module.params:
        name, i = f"{base}.{i}", i + 1
    return name
