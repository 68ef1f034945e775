"""The table from torch targets to lowering rules, shared by the FX and export frontends.

A rule is a function ``rule(cx, *args, **kwargs)`` whose parameters mirror the torch
signature; it returns an IR Value, a Python value (sizes), or a tuple of those. Keys are
Python callables (``torch.add``, ``operator.add``, ``F.relu``), method names as strings
(``"add"`` for ``x.add(y)``) and ATen overload packets (``torch.ops.aten.add``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

__all__ = ["LOWERINGS", "lowers", "lookup", "named", "target_name", "aten"]

aten = torch.ops.aten
LOWERINGS: dict[Any, Callable[..., Any]] = {}


def lowers(*targets: Any) -> Callable:
    """Decorator: register a lowering rule for each torch target."""

    def register(fn: Callable) -> Callable:
        for t in targets:
            LOWERINGS[t] = fn
        return fn

    return register


def named(label: str) -> Callable:
    """Give a rule made by a factory a readable name (for docs and messages)."""

    def rename(fn: Callable) -> Callable:
        fn.__qualname__ = fn.__name__ = label
        return fn

    return rename


def lookup(target: Any) -> Callable | None:
    rule = LOWERINGS.get(target)
    if rule is None and isinstance(target, torch._ops.OpOverload):
        rule = LOWERINGS.get(target.overloadpacket)
    return rule


def target_name(target: Any) -> str:
    """A readable name of a torch target for messages: torch.nn.functional.relu, aten.add.Tensor."""
    if isinstance(target, str):
        return f"Tensor.{target}"
    if isinstance(target, torch._ops.OpOverload | torch._ops.OpOverloadPacket):
        return str(target)
    module = getattr(target, "__module__", None) or ""
    name = getattr(target, "__qualname__", None) or getattr(
        target, "__name__", repr(target)
    )
    if name.startswith("_VariableFunctionsClass."):  # torch.exp and other C functions
        module, name = "torch", name.split(".", 1)[1]
    if module in ("_operator", "operator"):
        return f"operator.{name}"
    return f"{module}.{name}" if module else name
