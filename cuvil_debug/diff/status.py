"""The words the diff tools compare and write: stages, statuses, verdicts, kinds.

Each is a `StrEnum`, so a member *is* its string: it compares equal to it, hashes like
it and serializes as it (``json.dumps(Status.VALUE) == '"value"'``). The JSON report and
every printed line keep the same words; the code names them once, here.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "Stage",
    "Status",
    "Verdict",
    "BisectVerdict",
    "ReduceKind",
    "Outcome",
    "COMPARED",
]


class Stage(StrEnum):
    """A stage of the compiler; every stage but ``eager`` is compared with ``eager``."""

    EAGER = "eager"
    IR = "ir"
    OPT = "opt"
    NATIVE = "native"


class Status(StrEnum):
    """How an FX node is represented in a stage (``StageResult.status``)."""

    VALUE = "value"
    ALIAS = "alias"
    FUSED = "fused"
    FOLDED = "folded"
    REMOVED = "removed"
    CONSTANT = "constant"
    FAILED = "failed"
    NOT_RUN = "not-run"


# the statuses of a node whose value exists in the stage (and is measured there)
COMPARED = frozenset({Status.VALUE, Status.ALIAS, Status.FUSED})


class Verdict(StrEnum):
    """A stage cell's verdict, strongest first (a row takes the strongest of its
    stages); the JSON's ``verdict`` of each stage result."""

    INTRODUCED = "introduced"
    FAILED = "failed"
    INHERITED = "inherited"
    OK = "ok"
    NONE = "none"

    @property
    def bad(self) -> bool:
        return self in (Verdict.INTRODUCED, Verdict.FAILED, Verdict.INHERITED)


class BisectVerdict(StrEnum):
    """What ``cuvil-debug bisect`` found (``BisectResult.verdict``)."""

    PASS = "pass"
    LLVM = "llvm"
    CODEGEN = "codegen"
    FRONTEND = "frontend"
    CLEAN = "clean"


class ReduceKind(StrEnum):
    """What a reduced graph still shows (``ReduceResult.kind``)."""

    DIVERGES = "diverges"
    COMPILE_ERROR = "compile-error"


class Outcome(StrEnum):
    """What one candidate subgraph of ``reduce`` did."""

    OK = "ok"
    DIVERGES = "diverges"
    ERROR = "error"  # compiling (or calling) it raised a CuvilError
    INVALID = "invalid"  # not a runnable candidate
