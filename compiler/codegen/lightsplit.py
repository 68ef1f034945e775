"""Hand-vectorized kernels apart from the rest: LLVM's IR optimizer skips them.

The GEMM and direct-convolution micro-kernels (gemm.py, conv.py) are emitted already in
the form LLVM would optimize them to: register tiles of ``<16 x float>`` FMAs whose
accumulators are loop phis, constant arithmetic folded as it is built, no allocas to
promote. LLVM's O3 pipeline over them bought nothing measurable (the same inner loops,
instruction for instruction; docs/COMPILE_TIME.md) and cost ~60% of a ResNet-18
compile's LLVM time (InstCombine, GVN, SLP, IndVars over ~1,400 lines per kernel).

``mark`` records such a function while it is emitted; ``Program.light`` carries the
names; ``split`` cuts the module's text in two: the main part, where each light function
is only declared (O3 runs over it as before), and the light part, the light functions
with what they need (intrinsic declarations, the internal constants they read, the
metadata), which goes to code generation with no IR passes (``target.optimize``). Code
generation itself still runs at full strength over both (instruction selection, LSR,
machine LICM and CSE, scheduling, register allocation).

A light function is cut out only if it is external and reads no global but an internal
constant, a declared function or another light function (its part then stands alone);
otherwise it stays in the main part, optimized as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from llvmlite import ir

__all__ = ["mark", "light_names", "split", "Split"]

_KEY = "_cuvil_light"
_NAME = re.compile(r'@"((?:[^"\\]|\\.)*)"|@([-\w$.]+)')
_DBG = re.compile(r"\s*!dbg !\d+")


def mark(fn: ir.Function) -> ir.Function:
    """Record `fn` (hand-vectorized, external) as one LLVM's IR passes may skip."""
    fn.module.__dict__.setdefault(_KEY, []).append(fn.name)
    return fn


def light_names(module: ir.Module) -> tuple[str, ...]:
    return tuple(module.__dict__.get(_KEY, ()))


@dataclass(frozen=True)
class Split:
    main: str  # the module, each light function only declared
    light: str  # the light functions, standalone (None from split: nothing to cut)
    names: tuple[str, ...]


def _name(line: str) -> str | None:
    m = _NAME.search(line)
    return None if m is None else (m.group(1) if m.group(1) is not None else m.group(2))


def _pieces(text: str):
    """(kind, name, lines) in order: kind 'define', 'global', 'declare', 'meta', 'other'."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("define "):
            end = i
            while end < len(lines) and lines[end] != "}":
                end += 1
            yield "define", _name(line), lines[i : end + 1]
            i = end + 1
            continue
        if line.startswith("@"):
            yield "global", _name(line), [line]
        elif line.startswith("declare "):
            yield "declare", _name(line), [line]
        elif line.startswith("!"):
            yield "meta", None, [line]
        else:
            yield "other", None, [line]
        i += 1


def _refs(body: list[str]) -> set[str]:
    return {
        m.group(1) if m.group(1) is not None else m.group(2)
        for line in body[1:]
        for m in _NAME.finditer(line)
    }


def _cuttable(pieces, wanted: set[str]) -> dict[str, list[str]]:
    """The wanted functions that can stand alone in the light part, with their bodies."""
    bodies = {n: ls for k, n, ls in pieces if k == "define" and n in wanted}
    consts = {
        n
        for k, n, ls in pieces
        if k == "global" and re.search(r"=\s*(internal|private)\s.*\bconstant\b", ls[0])
    }
    declared = {n for k, n, _ in pieces if k == "declare"}
    ok = {n for n, ls in bodies.items() if ls[0].startswith("define void @")}
    changed = True
    while changed:  # a light function calling one that must stay makes it stay too
        changed = False
        for n in sorted(ok):
            if not _refs(bodies[n]) <= ok | consts | declared:
                ok.discard(n)
                changed = True
    return {n: bodies[n] for n in ok}


def split(text: str, names: Iterable[str]) -> Split | None:
    """Cut the light functions `names` out of the module `text` (llvmlite's printing);
    None: none of them can be cut."""
    wanted = set(names)
    if not wanted:
        return None
    pieces = list(_pieces(text))
    cut = _cuttable(pieces, wanted)
    if not cut:
        return None
    used = set().union(*(_refs(body) for body in cut.values()))
    main: list[str] = []
    light: list[str] = []
    for kind, name, lines in pieces:
        if kind == "define" and name in cut:
            main.append(_DBG.sub("", "declare" + lines[0][len("define") :]))
            light += lines
        elif kind == "define":
            main += lines
        elif kind == "global":
            main += lines
            if name in used:
                light += lines
        else:  # declarations, metadata, the header: both parts
            main += lines
            light += lines
    return Split("\n".join(main), "\n".join(light), tuple(sorted(cut)))
