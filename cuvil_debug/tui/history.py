"""The pass timeline's view model (no Textual): the IR before and after every pass of
the pipeline, and what each pass did to one op (its fate).

``HistoryRecorder`` is a pass callback (``callback(pass_, before, module_after, info)``):
it keeps one ``Snapshot`` per distinct IR text (a pass that changes nothing shares the
snapshot before it) with a record per op: printed line, FX nodes, a text signature.
Op identities do not survive a pass, so an op is followed by its location's FX nodes
(``OpKey``): the ops of a snapshot whose nodes meet the key's are "the op" there, and
``PassHistory.fate`` compares them before and after a pass: kept, rewritten, fused into
a ``cuvil.fused`` kernel, folded, removed (or created, or absent).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cuvil.ir import Module, Operation, format_op, print_module
from cuvil.ir.attributes import format_attr
from cuvil.ir.printer import Namer
from cuvil.passes import PassInfo
from cuvil.passes.base import main_functions

__all__ = [
    "OpRecord",
    "OpKey",
    "Snapshot",
    "snapshot",
    "PassStep",
    "Fate",
    "PassHistory",
    "HistoryRecorder",
    "TEXT_CAP",
]

CONSTANTS = frozenset({"cuvil.param", "cuvil.constant"})
# Snapshot texts kept in all (characters): resnet18 -O3 needs ~0.3 M; past the cap the
# later snapshots keep their op records (fates still work) but not their text
TEXT_CAP = 50_000_000
_NUMBERED = re.compile(
    r"%\d+(?:_\d+)?\b"
)  # printer-numbered values shift across passes


@dataclass(frozen=True)
class OpRecord:
    """One op of a snapshot: where its line is and what identifies it."""

    line: int  # index into the snapshot's lines (-1: not found)
    func: str
    name: str  # op name, "cuvil.conv2d"
    results: str  # printed result names, "%a, %b"
    nodes: tuple[str, ...]  # FX nodes of its location
    sig: str  # the printed line, numbered value names blanked
    body: str | None = None  # a cuvil.fused op's body function
    param: str | None = None  # a cuvil.param's parameter name

    @property
    def label(self) -> str:
        return f"{self.results} = {self.name}" if self.results else self.name


@dataclass(frozen=True)
class OpKey:
    """How an op is followed across snapshots: its FX nodes (a param: its name)."""

    nodes: frozenset[str]
    name: str
    param: str | None = None

    @staticmethod
    def of(record: OpRecord) -> OpKey:
        return OpKey(frozenset(record.nodes), record.name, record.param)

    @staticmethod
    def of_op(op: Operation) -> OpKey:
        return OpKey(frozenset(op.loc.nodes), op.name, _param_name(op))

    def matches(self, record: OpRecord) -> bool:
        return self._hits(record.name, record.nodes, record.param)

    def matches_op(self, op: Operation) -> bool:
        return self._hits(op.name, op.loc.nodes, _param_name(op))

    def _hits(self, name: str, nodes: tuple[str, ...], param: str | None) -> bool:
        if self.param is not None:
            return param == self.param
        same_kind = (name in CONSTANTS) == (self.name in CONSTANTS)
        return same_kind and not self.nodes.isdisjoint(nodes)


@dataclass(eq=False)
class Snapshot:
    """The IR at one point of the pipeline: its lines (None past TEXT_CAP) and ops."""

    lines: tuple[str, ...] | None
    ops: tuple[OpRecord, ...]  # the main functions' ops, in order
    bodies: dict[str, tuple[OpRecord, ...]] = field(default_factory=dict)

    def matching(self, key: OpKey) -> list[OpRecord]:
        """The ops of the main functions that are `key`'s op here."""
        return [r for r in self.ops if key.matches(r)]

    def marked_lines(self, key: OpKey) -> set[int]:
        """The lines of `key`'s op here, fused bodies' members included."""
        records = [*self.ops, *(r for body in self.bodies.values() for r in body)]
        return {r.line for r in records if r.line >= 0 and key.matches(r)}

    def at_line(self, line: int) -> OpRecord | None:
        every = (*self.ops, *(r for body in self.bodies.values() for r in body))
        return next((r for r in every if r.line == line), None)


def _param_name(op: Operation) -> str | None:
    if op.name != "cuvil.param" or op.attrs.get("name") is None:
        return None
    return format_attr(op.attrs["name"])


def _same(a: Snapshot, b: Snapshot) -> bool:
    if a.lines is not None:
        return a.lines == b.lines
    return [r.sig for r in a.ops] == [r.sig for r in b.ops] and a.bodies == b.bodies


def _record(op: Operation, namer: Namer, func: str, line: int) -> OpRecord:
    text = format_op(op, namer)
    body = op.attrs.get("body") if op.name == "cuvil.fused" else None
    return OpRecord(
        line=line,
        func=func,
        name=op.name,
        results=", ".join(namer(r) for r in op.results),
        nodes=op.loc.nodes,
        sig=_NUMBERED.sub("%#", text),
        body=None if body is None else body.name,
        param=_param_name(op),
    )


def snapshot(module: Module, keep_text: bool = True) -> Snapshot:
    """Index `module` as print_module prints it: one line per op, functions after the
    module's params, each function a header line, its ops, ``return`` and ``}``."""
    lines = print_module(module).splitlines()
    mains = {fn.name for fn in main_functions(module)}
    ops: list[OpRecord] = []
    bodies: dict[str, tuple[OpRecord, ...]] = {}
    at = 1 + len(module.params)
    for fn in module.functions:
        namer = Namer()
        for a in fn.args:
            namer(a)
        records = tuple(
            _record(op, namer, fn.name, _line_of(lines, at + 1 + pos, op))
            for pos, op in enumerate(fn.ops)
        )
        at += len(fn.ops) + 3
        if fn.name in mains:
            ops += records
        else:
            bodies[fn.name] = records
    return Snapshot(tuple(lines) if keep_text else None, tuple(ops), bodies)


def _line_of(lines: list[str], index: int, op: Operation) -> int:
    # an op printed over several lines would shift the rest: then mark no line
    ok = index < len(lines) and f" {op.name}(" in lines[index]
    return index if ok else -1


@dataclass(frozen=True)
class PassStep:
    """One pass of the pipeline: what it reported and the IR around it."""

    index: int
    info: PassInfo
    before: Snapshot
    after: Snapshot

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def ms(self) -> float:
        return self.info.seconds * 1e3

    @property
    def folds(self) -> bool:
        """A folding pass: the ops it removes were folded into others or constants."""
        return self.name.startswith("fold-")


@dataclass(frozen=True)
class Fate:
    """What a pass did to an op: `kind` is kept, rewritten, fused, folded, merged (cse),
    removed, created, absent or untracked; `text` the line the timeline shows."""

    kind: str
    text: str
    kernel: OpRecord | None = None  # fused: the cuvil.fused op
    members: tuple[OpRecord, ...] = ()  # fused: its body's ops


def _labels(records: list[OpRecord]) -> str:
    return ", ".join(r.label for r in records)


def _gone(before: list[OpRecord], step: PassStep) -> Fate:
    sigs = {r.sig for r in step.before.ops}
    made = [r for r in step.after.ops if r.name in CONSTANTS and r.sig not in sigs]
    nodes = {n for b in before for n in b.nodes}
    made = [r for r in made if not nodes.isdisjoint(r.nodes)]
    if made:
        return Fate("folded", f"folded into {_labels(made)}")
    if step.folds:
        return Fate("folded", f"folded: {_labels(before)} is gone")
    return Fate("removed", f"removed: {_labels(before)}")


def _gained(before: list[OpRecord], after: list[OpRecord]) -> bool:
    """Do the ops after carry FX nodes that the ops before did not?"""
    had = {n for r in before for n in r.nodes}
    return any(not had.issuperset(r.nodes) for r in after)


def _changed(before: list[OpRecord], after: list[OpRecord], step: PassStep) -> Fate:
    sigs = {r.sig for r in before}
    kernels = [r for r in after if r.name == "cuvil.fused" and r.sig not in sigs]
    if kernels:
        k = kernels[0]
        members = step.after.bodies.get(k.body or "", ())
        inside = ", ".join(m.name for m in members)
        return Fate("fused", f"fused into {k.label} @{k.body} [{inside}]", k, members)
    names = {r.name for r in after}
    lost = [r for r in before if r.name not in names]
    if step.folds and lost:
        return Fate("folded", f"{_labels(lost)} folded into {_labels(after)}")
    if step.name == "cse" and _gained(before, after):
        # cse keeps the first of equal ops, its location fused with the others'
        return Fate("merged", f"merged into {_labels(after)}")
    # name only what differs: an unchanged neighbour with the same FX node stays out
    was = [r for r in before if r.sig not in {a.sig for a in after}]
    now = [r for r in after if r.sig not in sigs]
    return Fate("rewritten", f"rewritten: {_labels(was)} -> {_labels(now)}")


@dataclass
class PassHistory:
    """Every pass of one pipeline run, in order (`steps`), and the pipeline text."""

    pipeline: str
    steps: list[PassStep]
    text_dropped: bool = False  # some snapshot's text was over TEXT_CAP

    def fate(self, index: int, key: OpKey | None) -> Fate:
        """What pass `index` did to `key`'s op."""
        if key is None or (not key.nodes and key.param is None):
            return Fate("untracked", "the op's location has no FX node to follow")
        step = self.steps[index]
        before, after = step.before.matching(key), step.after.matching(key)
        if not before:
            if after:
                return Fate("created", f"created: {_labels(after)}")
            return Fate("absent", "not in the IR before or after this pass")
        if not after:
            return _gone(before, step)
        if sorted(r.sig for r in before) == sorted(r.sig for r in after):
            return Fate("kept", f"kept: {_labels(after)}")
        return _changed(before, after, step)

    def fates(self, key: OpKey | None) -> list[Fate]:
        return [self.fate(i, key) for i in range(len(self.steps))]


class HistoryRecorder:
    """A pass callback that records a PassHistory; make it before the pipeline runs
    (it snapshots the input module) and read ``history(pipeline)`` after."""

    def __init__(self, module: Module, cap: int = TEXT_CAP) -> None:
        self.cap = cap
        self.chars = 0
        self.dropped = False
        self.last: Snapshot | None = None
        self.last = self._snap(module)
        self.steps: list[PassStep] = []

    def _snap(self, module: Module) -> Snapshot:
        snap = snapshot(module)
        if self.last is not None and _same(self.last, snap):
            return self.last  # a pass that changed nothing shares the snapshot before
        size = sum(map(len, snap.lines or ()))
        if self.chars + size > self.cap:
            self.dropped = True
            return Snapshot(None, snap.ops, snap.bodies)
        self.chars += size
        return snap

    def __call__(self, pass_, before: str, after: Module, info: PassInfo) -> None:
        # every pass is snapshotted, not only those reporting a change: a pass that
        # changes the IR and says it did not is what a debugger should show
        snap = self._snap(after)
        self.steps.append(PassStep(len(self.steps), info, self.last, snap))
        self.last = snap

    def history(self, pipeline: str = "") -> PassHistory:
        return PassHistory(pipeline, self.steps, self.dropped)
