"""Which example input a model that fails eagerly was wrongly fed: the one whose size
torch's message states, or whose dtype its line sets; and the lines of the model
file's example_inputs() that build them."""

from __future__ import annotations

import ast
import re

__all__ = ["cast_input", "input_lines", "sized_input"]


def sized_input(record) -> list[int]:
    """The one example input that has a size torch's eager message states and no
    other input has (`The size of tensor a (500) must match ... (512)` with inputs
    (2, 500), (2, 8, 2), (2,): the first); [] when the sizes do not tell."""
    chain = ((record.get("eager") or {}).get("error") or {}).get("chain") or [{}]
    said = {int(n) for n in re.findall(r"\d+", chain[-1].get("message", ""))} - {0, 1}
    shapes = [set(i.get("shape") or ()) for i in record.get("inputs") or []]
    unique = {n for n in said if sum(n in s for s in shapes) == 1}
    named = [i for i, s in enumerate(shapes) if s & unique]
    return named if len(named) == 1 < len(shapes) else []  # which one of several


def input_lines(graph, which, built=True) -> list[tuple[str, int]]:
    """The lines of example_inputs() that build its `which` returned items (the last
    assignment of a returned name, else the item's own line); with `built` False,
    its `return` line instead."""
    out = []
    for fn in graph.funcs if which else ():
        if fn.name != "example_inputs" or not fn.returns():
            continue
        ret = fn.returns()[-1]
        items = getattr(ret.node.value, "elts", None) or []
        lines = [] if built else [ret.line]
        for i in which if built else ():
            item = items[i] if i < len(items) else None
            name = item.id if isinstance(item, ast.Name) else None
            made = [s.line for s in fn.stmts if name in s.defs and s.line < ret.line]
            lines += (made or [getattr(item, "lineno", ret.line)])[-1:]
        out += [(fn.file, line) for line in lines]
    return out


def cast_input(graph, n: int) -> list[int]:
    """The one of several example inputs whose line sets its dtype (`.float()`,
    `dtype=torch.int32`): the input a dtype error points at."""
    cast = [
        i
        for i in range(n)
        if any(
            "dtype-set" in graph.facts(graph.key(loc))
            for loc in input_lines(graph, [i])
        )
    ]
    return cast if len(cast) == 1 < n else []
