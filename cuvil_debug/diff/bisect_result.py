"""What ``cuvil-debug bisect`` found (`BisectResult`) and how it is printed
(`format_result`); the search itself is bisect.py."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from cuvil.passes import Action

from .status import BisectVerdict

__all__ = ["BisectResult", "VERDICTS", "compile_bound", "format_result"]

VERDICTS = {
    BisectVerdict.PASS: "a Cuvil pass action makes the output diverge",
    BisectVerdict.LLVM: "an LLVM optimization pass makes the output diverge",
    BisectVerdict.CODEGEN: "the output diverges with every pass off: code generation "
    "(or a part of LLVM that -opt-bisect-limit cannot skip)",
    BisectVerdict.FRONTEND: "the IR straight from the frontend already diverges",
    BisectVerdict.CLEAN: "nothing diverges from eager",
}


@dataclass
class BisectResult:
    """What `bisect` found; `format_result` renders it."""

    verdict: BisectVerdict  # a key of VERDICTS
    actions: int  # Cuvil pass actions of the full pipeline
    compiles: int  # pipeline runs checked for the Cuvil-pass search (see compile_bound)
    action: Action | None  # the culprit action (verdict "pass")
    pass_spec: str | None  # the pass that asked for it, as pipeline text
    ir_diff: str | None  # IR with limit N-1 vs limit N (the culprit action alone)
    llvm_limit: int | None  # verdict "llvm": first -opt-bisect-limit that diverges
    llvm_pass: str | None  # verdict "llvm": that LLVM pass's name
    detail: str  # one line: what diverges and by how much
    log: list[str] = field(default_factory=list)  # one line per check
    llvm_passes: int | None = None  # LLVM passes counted (the LLVM search's range)
    llvm_function: str | None = None  # what the culprit LLVM pass ran on
    llvm_compiles: int = 0  # compiles of the LLVM search (not in `compiles`)
    checker: str = ""  # "interpreter" or "native": how the Cuvil checks ran
    pipeline: str = ""  # the pass pipeline bisected


def compile_bound(actions: int) -> int:
    """The most checks the Cuvil-pass search needs: ceil(log2(actions)) + 2."""
    return math.ceil(math.log2(actions)) + 2 if actions > 1 else 2


# ---- the report ------------------------------------------------------------------------


def format_result(r: BisectResult) -> str:
    """What ``cuvil-debug bisect`` prints."""
    lines = [f"verdict: {r.verdict} ({VERDICTS.get(r.verdict, '?')})"]
    lines.append(f"detail: {r.detail}")
    if r.pipeline:
        lines.append(f"pipeline: {r.pipeline}")
    if r.action is not None:
        lines.append(f"pass: {r.pass_spec}")
        lines.append(
            f"action: #{r.action.index} of {r.actions}: {r.action.description}"
        )
    if r.llvm_pass is not None:
        on = f" on {r.llvm_function}" if r.llvm_function else ""
        lines.append(
            f"llvm pass: ({r.llvm_limit}) {r.llvm_pass}{on} "
            f"(of {r.llvm_passes}; -opt-bisect-limit={r.llvm_limit - 1} is right)"
        )
    if r.verdict != BisectVerdict.FRONTEND:
        lines.append(
            f"compiles: {r.compiles} for {r.actions} actions "
            f"(bound ceil(log2(actions))+2 = {compile_bound(r.actions)}; "
            f"checks by {r.checker or 'interpreter'})"
        )
    if r.llvm_compiles:
        lines.append(
            f"llvm compiles: {r.llvm_compiles} for {r.llvm_passes} LLVM passes "
            f"(bound {compile_bound(r.llvm_passes or 0)})"
        )
    lines.append("checks:")
    lines.extend(f"  {line}" for line in r.log)
    if r.ir_diff:
        lines.append(f"IR diff of action #{r.action.index}:")
        lines.append(r.ir_diff.rstrip("\n"))
    return "\n".join(lines) + "\n"
