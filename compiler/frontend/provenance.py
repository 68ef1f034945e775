"""Turns FX node metadata (stack_trace, nn_module_stack) into IR locations."""

from __future__ import annotations

import linecache
import os
import re
from pathlib import Path

import torch
import torch.fx

from ..ir.location import Loc

__all__ = ["node_loc", "user_frame", "display_path"]

_FRAME = re.compile(
    r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>\S+)\n(?P<code>[^\n]*)'
)
_INTERNAL = tuple(
    str(Path(p).resolve()) + os.sep
    for p in (Path(torch.__file__).parent, Path(__file__).parents[1])
)


def user_frame(stack_trace: str | None) -> tuple[str, int, str] | None:
    """The innermost frame of a stack trace that is the user's code (not torch or Cuvil)."""
    if not stack_trace:
        return None
    best = None
    for m in _FRAME.finditer(stack_trace):
        path = m["file"]
        if path.startswith("<") or str(Path(path).resolve()).startswith(_INTERNAL):
            continue
        best = (path, int(m["line"]), m["code"])
    return best


def display_path(path: str) -> str:
    """A path relative to the working directory when it lies below it (as compilers print)."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _column(code: str, hints: list[str]) -> int:
    """1-based column of the first hint found in the source line, else of the first token."""
    for hint in hints:
        for pattern in (f".{hint}(", f"{hint}(", hint):
            i = code.find(pattern)
            if i >= 0:
                return i + 1 + (1 if pattern.startswith(".") else 0)
    return len(code) - len(code.lstrip()) + 1


def _module_path(node: torch.fx.Node) -> str | None:
    if node.op == "call_module":
        return str(node.target)
    stack = node.meta.get("nn_module_stack")
    if not stack:
        return None
    path = list(stack.values())[-1][0]
    return path or None


def _hints(node: torch.fx.Node) -> list[str]:
    target = node.target
    if node.op == "call_module":
        return [str(target).rsplit(".", 1)[-1]]
    name = (
        target if isinstance(target, str) else getattr(target, "__name__", str(target))
    )
    name = str(name).split(".")[0] if hasattr(target, "overloadpacket") else str(name)
    hints = [name, node.name.rstrip("_0123456789")]
    module = _module_path(node)
    return hints + ([module.rsplit(".", 1)[-1]] if module else [])


def node_loc(node: torch.fx.Node) -> Loc:
    """Loc(node name, module path, file:line:col) for an FX node."""
    stack = node.meta.get("stack_trace") or getattr(node, "stack_trace", None)
    frame = user_frame(stack)
    module = _module_path(node)
    if frame is None:
        return Loc(node=node.name, module=module)
    file, line, code = frame
    source = linecache.getline(file, line).rstrip("\n") or code.strip()
    col = _column(source, _hints(node))
    return Loc(
        node=node.name, module=module, file=display_path(file), line=line, col=col
    )
