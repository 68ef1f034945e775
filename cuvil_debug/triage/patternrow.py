"""One row of the PATTERNS table (patterns.py): the signals that vote for a category."""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["Pattern"]


@dataclass(frozen=True)
class Pattern:
    """Votes `weight` for `category` when all `signals` are present (and none of
    `unless`). Signal families: exc:Type, err:/gb:/guard:/op: (torch's structured
    fields and frames), msg:signal, ast:fact (failing line), flow:fact (lines the
    offending value came from), near:fact (its direct defs), operand:fact (where the
    failing line's operands came from, def-use edges only), lenarg:fact (where the
    argument of a `len()` on the failing line came from), search:fact (any model
    line, no failing line known), origin:value-read (an eager replay found the read
    that made an unbacked symbol), eager:ok|fail, raise:user|lib|cuvil,
    io:non-tensor-input|container-input, sig:, fe:. `origin`: the labelled set the
    row was written from (scripts/triage_loso.py leaves a set's rows out)."""

    category: str
    signals: frozenset[str]
    weight: float
    unless: frozenset[str] = frozenset()
    origin: str = ""  # the labelled set whose misses it was written from


def _from(origin: str, rows: list[Pattern]) -> list[Pattern]:
    return [replace(p, origin=origin) for p in rows]


def _p(category: str, signals: str, weight: float, unless: str = "") -> Pattern:
    return Pattern(
        category, frozenset(signals.split()), weight, frozenset(unless.split())
    )
