"""A submodule's code reached from a call of it: the classes `self.head = Head(...)`
built, and the lines of the method a failing line calls on one (`self.trans.HVIT(x)`),
which torch's stack trace may not show."""

from __future__ import annotations

import ast
import re

from .rootcause import DefUseGraph
from .source import _header, index_file

__all__ = ["built_classes", "callee_lines", "lifted_state_writes"]


def built_classes(graph: DefUseGraph, attr: str, cls: str | None = None) -> set[str]:
    """The classes assigned to `self.<attr>` (in `cls`'s methods, or any class's when
    `cls` is None): `self.conv_1 = Conv3XC(...)` -> {"Conv3XC"}."""
    return {
        ast.unparse(s.node.value.func).split(".")[-1]
        for f in graph.funcs
        if cls is None or f.cls == cls
        for s in f.stmts
        if isinstance(s.node, ast.Assign)
        and isinstance(s.node.value, ast.Call)
        and any(
            isinstance(t, ast.Attribute)
            and t.attr == attr
            and isinstance(t.value, ast.Name)
            and t.value.id == "self"
            for t in s.node.targets
        )
    }


def callee_lines(graph: DefUseGraph, key, fact: str) -> list[tuple[str, int]]:
    """The lines holding `fact` in the methods the statement at `key` calls on a
    submodule (`self.trans.HVIT(x)`) or on itself (`self.refine(x)`)."""
    ix = index_file(key[0]) if key else None
    stmt = ix.stmt_at(key[1]) if ix else None
    if stmt is None or stmt.func is None:
        return []
    out = []
    for call in (n for p in _header(stmt.node) for n in ast.walk(p)):
        target = _method_of(graph, stmt.func.cls, call)
        for fn in graph.funcs if target else ():
            if (fn.cls, fn.name) in target:
                out += [
                    (fn.file, s.line)
                    for s in fn.stmts
                    if fact in graph.facts(graph.key((fn.file, s.line)))
                ]
    return out


def _method_of(graph: DefUseGraph, cls, call) -> set[tuple]:
    """{(class, method)} a call `self.sub.method(...)` / `self.method(...)` runs."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return set()
    owner, method = call.func.value, call.func.attr
    if isinstance(owner, ast.Name) and owner.id == "self":
        return {(cls, method)}
    if (
        isinstance(owner, ast.Attribute)
        and isinstance(owner.value, ast.Name)
        and owner.value.id == "self"
    ):
        return {(c, method) for c in built_classes(graph, owner.attr, cls)}
    return set()


_LIFTED_FROM = re.compile(r"model attribute: ((?:\w+\.)*\w+)\.lifted_tensor")


def lifted_state_writes(graph: DefUseGraph, chain: list[dict]) -> list[tuple]:
    """export names where it found a fake constant (`conv_1.lifted_tensor_0`): the
    module state written in the class of `self.conv_1 = Conv3XC(...)` (a `.data`
    write in its `update_params()`) made it, not the model's own state writes.
    ((file, line), whether it writes `.data`) pairs."""
    said = [_LIFTED_FROM.search(e["message"]) for e in chain]
    attr = next((m.group(1).split(".")[-1] for m in said if m), None)
    classes = built_classes(graph, attr) if attr else set()
    out = []
    for fn in graph.funcs:
        for st in fn.stmts if fn.cls in classes else ():
            if "state-write" in graph.facts(graph.key((fn.file, st.line))):
                data = any(getattr(t, "attr", "") == "data" for t in st.node.targets)
                out.append(((fn.file, st.line), data))
    return out
