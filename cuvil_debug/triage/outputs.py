"""Where a model's flattened outputs are built: the lines that assign the name a
forward() returns at an output's place, or the element of a returned literal that
holds it, through `return self.head(...)` into the submodule's forward()."""

from __future__ import annotations

import ast

from .callees import built_classes
from .rootcause import DefUseGraph

__all__ = ["output_lines"]


def output_lines(graph: DefUseGraph, fn, index: int, hops: int = 1) -> list:
    """Where `fn`'s returns build their flattened output `index`: the lines assigning
    the name returned there, or the element's own line in a multi-line literal
    (`"n": h.shape[1],`); through `return self.head(...)` into the submodule's
    forward() (`hops` levels)."""
    out = []
    for ret in fn.returns():
        leaves = _leaves(ret.node.value)
        sub = _submodule_forward(graph, fn, leaves[0]) if len(leaves) == 1 else None
        if sub is not None and hops:
            out += output_lines(graph, sub, index, hops - 1)
            continue
        leaf = leaves[index] if index < len(leaves) else None
        if isinstance(leaf, ast.Name):
            out += [
                (s.file, s.line)
                for s in fn.stmts
                if leaf.id in s.defs and s.line < ret.line
            ]
        elif leaf is not None and leaf.lineno != ret.line:
            out.append((fn.file, leaf.lineno))
    return out


def _submodule_forward(graph: DefUseGraph, fn, call):
    """`self.head(...)` -> the forward() of the class `self.head = Head(...)` built."""
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == "self"
    ):
        return None
    built = built_classes(graph, call.func.attr, fn.cls)
    return next(
        (f for f in graph.funcs if f.name == "forward" and f.cls in built), None
    )


def _leaves(node) -> list:
    if isinstance(node, ast.Tuple | ast.List):
        return [leaf for elt in node.elts for leaf in _leaves(elt)]
    if isinstance(node, ast.Dict):  # pytree flattens a dict's values in order
        return [leaf for v in node.values for leaf in _leaves(v)]
    return [node]
