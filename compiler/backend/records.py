"""What ran where: the backend's record of every graph, build and region, and its report.

Every dynamo graph the backend compiles gets a ``GraphRecord``; each concrete input
shape of it a ``BuildRecord`` (one Cuvil module, a split into Cuvil regions and eager
ops, or all eager), with the ops Cuvil refused (each with the user's line). Regions
count their runs as Cuvil code; so a user can see that Cuvil code runs, how often, and
what does not (``cuvil.backend.report()``; each new build also goes to stderr under
``CUVIL_DEBUG=1``, its regions under ``CUVIL_DEBUG=2``).
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field

from .. import debuglevel
from .survey import Refusal

__all__ = ["RegionRecord", "BuildRecord", "GraphRecord", "Report", "new_graph"]


@dataclass
class RegionRecord:
    """A part of a graph compiled by Cuvil."""

    ops: int  # FX nodes in it
    kernels: int = 0  # native kernels of its build(s), the last one's
    runs: int = 0  # calls that ran Cuvil code
    eager_runs: int = 0  # calls that ran eagerly: its compile failed for that shape
    error: str | None = None  # why it failed to compile, if it did

    @property
    def kernel_runs(self) -> int:
        return self.kernels * self.runs


@dataclass
class BuildRecord:
    """One input shape of a graph: how it is run."""

    shapes: str
    regions: list[RegionRecord] = field(default_factory=list)
    eager_ops: list[str] = field(default_factory=list)  # "op at file:line" per node
    refused: list[Refusal] = field(default_factory=list)
    calls: int = 0
    error: str | None = None  # why none of it is compiled

    @property
    def kind(self) -> str:
        """ "cuvil" (all compiled), "split" (regions and eager ops) or "eager"."""
        if not self.regions:
            return "eager"
        if self.eager_ops or any(r.eager_runs for r in self.regions):
            return "split"
        return "cuvil"

    def summary(self) -> str:
        kernels = sum(r.kernels for r in self.regions)
        parts = [f"{self.shapes}: {self.kind}"]
        if self.regions:
            parts.append(f"{len(self.regions)} Cuvil region(s), {kernels} kernels")
        if self.eager_ops:
            parts.append(f"{len(self.eager_ops)} eager op(s)")
        if self.error:
            parts.append(f"eager because {self.error}")
        return ", ".join(parts)


@dataclass
class GraphRecord:
    """One graph dynamo handed over (a region of the user's code between breaks)."""

    index: int
    where: str  # the user's function and line of its first op
    weights: str = "none"  # how its parameters/buffers are compiled
    builds: list[BuildRecord] = field(default_factory=list)
    weight_changes: int = 0
    warned: bool = False
    autograd: bool = False  # the forward of a graph that needs gradients

    def add(self, build: BuildRecord) -> BuildRecord:
        self.builds.append(build)
        level = debuglevel.level()
        if level >= 1:
            print(
                f"cuvil backend: graph {self.index} ({self.where}) {build.summary()}",
                file=sys.stderr,
            )
        if level >= 2:
            for line in _build_lines(build):
                print(f"cuvil backend:   {line}", file=sys.stderr)
        return build


_LOCK = threading.Lock()
_GRAPHS: list[GraphRecord] = []


def new_graph(where: str) -> GraphRecord:
    with _LOCK:
        record = GraphRecord(len(_GRAPHS), where)
        _GRAPHS.append(record)
        return record


def reset() -> None:
    """Forget every record (graphs already compiled go on counting in their own)."""
    with _LOCK:
        _GRAPHS.clear()


class Report:
    """What the backend compiled and ran since the process started (or ``reset()``).

    ``str(report)`` is a table; the numbers are attributes: ``graphs`` (GraphRecord
    each), ``cuvil_runs`` (calls of Cuvil code), ``kernel_runs`` (native kernels
    executed), ``eager_runs`` (calls that ran some op eagerly), ``refused`` (every op
    Cuvil refused, once each, with its line)."""

    def __init__(self, graphs: list[GraphRecord]) -> None:
        self.graphs = graphs

    def _regions(self):
        return [r for g in self.graphs for b in g.builds for r in b.regions]

    @property
    def cuvil_runs(self) -> int:
        return sum(r.runs for r in self._regions())

    @property
    def kernel_runs(self) -> int:
        return sum(r.kernel_runs for r in self._regions())

    @property
    def eager_runs(self) -> int:
        builds = [b for g in self.graphs for b in g.builds]
        whole = sum(b.calls for b in builds if b.eager_ops or not b.regions)
        return whole + sum(r.eager_runs for r in self._regions())

    @property
    def refused(self) -> list[Refusal]:
        seen, out = set(), []
        for g in self.graphs:
            for b in g.builds:
                for r in b.refused:
                    if (r.where, r.op, r.follows) not in seen:
                        seen.add((r.where, r.op, r.follows))
                        out.append(r)
        return out

    def __str__(self) -> str:
        builds = sum(len(g.builds) for g in self.graphs)
        lines = [
            f"cuvil backend: {len(self.graphs)} graph(s), {builds} build(s); "
            f"Cuvil code ran {self.cuvil_runs} time(s) ({self.kernel_runs} kernel "
            f"runs); calls with eager ops: {self.eager_runs}"
        ]
        for g in self.graphs:
            changed = (
                f", weights changed {g.weight_changes}x" if g.weight_changes else ""
            )
            lines.append(
                f"graph {g.index} at {g.where} (weights: {g.weights}{changed})"
            )
            for b in g.builds:
                lines.append(f"  {b.summary()}; {b.calls} call(s)")
                lines += [f"    {line}" for line in _build_lines(b)]
        refused = self.refused
        if refused:
            lines.append(f"refused ops ({len(refused)}), run eagerly:")
            lines += [f"  {r.line()}" for r in refused]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<cuvil backend Report: {len(self.graphs)} graph(s)>"


def _build_lines(build: BuildRecord) -> list[str]:
    lines = []
    for i, r in enumerate(build.regions):
        failed = f"; compile failed: {r.error}" if r.error else ""
        lines.append(
            f"region {i}: {r.ops} ops, {r.kernels} kernels, {r.runs} Cuvil run(s)"
            + (f", {r.eager_runs} eager" if r.eager_runs else "")
            + failed
        )
    lines += [f"eager: {op}" for op in build.eager_ops]
    return lines


def report() -> Report:
    with _LOCK:
        return Report(list(_GRAPHS))
