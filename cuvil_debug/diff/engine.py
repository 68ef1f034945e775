"""``run_diff``: every FX node of a model, compared across the compiler's stages.

capture (trace + eager values)
  -> truth   the float64 twin of the graph: every node's truth (truth.py), computed by
             a forked child from here on (truth_fork.py; stages wait per node)
  -> lower; passes; the native build started (LLVM in a child process)
  -> opt     map; check; interpret the optimized IR (fused bodies expanded)
  -> ir      map nodes; static check; interpret (propagated + isolated)
  -> native  the normal build, kernel by kernel; fused members recomputed by a twin
             build of just the groups whose output is worse than eager (native.py)
  -> first divergence: the earliest node (graph order) whose isolated value the judge
     fails, in the earliest stage that shows it; for ``opt`` the pass that introduced
     it (passes re-run one by one, the node re-measured after each).

The judge (judge.py) is the float64 rule where a value has a float64 twin, the
tolerances elsewhere (and everywhere with ``judge="normwise"``). torch runs with one
thread for the whole diff: its work is many small ops next to LLVM's child processes,
where a second OpenMP thread spinning on a busy core costs more than it gives.

One `DiffRun` holds what the stage runners share: options, capture, the IR before and
after passes, node names, the oracle, the twin, the memory meter, the clock and the
report.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import torch
from torch.utils._pytree import tree_flatten

from cuvil.errors import CuvilError
from cuvil.frontend.export import from_export
from cuvil.frontend.fx import from_fx
from cuvil.hooks import CompileHooks
from cuvil.ir.core import Module
from cuvil.ir.printer import print_module
from cuvil.ir.verifier import verify
from cuvil.passes import default_pipeline

from ..faults import hooks as fault_hooks
from . import truth_fork
from .capture import Capture, capture
from .diff_options import DiffOptions
from .explain import explain, first_divergence
from .mapping import StageMap, fx_value_names, map_stage
from .model import STAGES, DiffReport
from .native import NativeBuild, walk_native
from .oracle import Oracle
from .progress import DONE
from .stages import Meter, Recorder, walk_ir
from .status import COMPARED, Stage, Status

if TYPE_CHECKING:
    from .trials import Batch
    from .truth import Twin
    from .truth_fork import ForkedTwin

__all__ = ["DiffOptions", "DiffRun", "run_diff"]

# the order the stages run in (see DiffRun._stages); reports read STAGES' order
RUN_ORDER = (Stage.OPT, Stage.IR, Stage.NATIVE)


def run_diff(
    model: torch.nn.Module,
    inputs: Sequence[torch.Tensor],
    options: DiffOptions | None = None,
    label: str | None = None,
    faults: Sequence[str] = (),
    progress: Callable[[str], None] | None = None,
    batches: Sequence[Batch] = (),
    save_to: str | os.PathLike | None = None,
    source: str = "example inputs",
) -> DiffReport:
    """Diff `model` on `inputs` through every stage (see the module docstring).
    `progress` is called with each phase's name as it starts (progress.PHASES) and
    with "done" at the end. `batches` (trials.py): the input batches to diff (the
    same shapes as `inputs`), each with the same builds; the report is the worst
    batch's, and a diverging batch drawn at random is saved to `save_to` (a new file
    when None) for reduce. `source`: what `inputs` are (the report's input_source)."""
    opts = options or DiffOptions()
    clock = _Clock(progress)
    with _one_thread():
        run = DiffRun.prepare(model, inputs, opts, clock, label, faults, source)
        try:
            if batches:
                from .trials import diff_batches

                diff_batches(run, batches, save_to)
            else:
                run.measure()
            run.conclude()
        finally:
            for child in run.forks:
                child.close()
    clock.start(DONE)
    return run.report


class _Clock:
    """Seconds per phase (``DiffReport.timings``): `lap(name)` ends the current one;
    `start(phase)` tells `progress` (if any) that a phase begins."""

    def __init__(self, progress: Callable[[str], None] | None = None) -> None:
        self.timings: dict[str, float] = {}
        self.last = time.perf_counter()
        self.progress = progress

    def start(self, phase: str) -> None:
        if self.progress is not None:
            self.progress(phase)

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.timings[name] = self.timings.get(name, 0.0) + now - self.last
        self.last = now


@dataclass
class DiffRun:
    """One diff: what every stage runner reads (options, capture, the IR before and
    after passes, node names, the oracle, the twin) and writes (the report, the stage
    maps)."""

    opts: DiffOptions
    cap: Capture
    before: Module  # the IR straight from the frontend
    clock: _Clock
    label: str
    faults: Sequence[str] = ()
    hooks: CompileHooks | None = None  # the compile's seams (injected faults)
    after: Module | None = None  # the IR after the pass pipeline
    build: NativeBuild | CuvilError | None = None  # the native build (or its failure)
    maps: dict[Stage, StageMap] = field(default_factory=dict)
    twin: Twin | None = None  # the float64 twin of this batch (None: no truth)
    input_source: str = "example inputs"
    # the twins computed by forked children (truth_fork.py), the latest last
    forks: list[ForkedTwin] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.names = fx_value_names(self.before)
        extras = self.hooks.passes if self.hooks is not None else ()
        self.pipeline = self.opts.pipeline or default_pipeline(
            self.opts.opt_level, self.opts.enable_fusion, extras
        )
        self.judge = self.opts.float64_judge()
        self.oracle = Oracle(self.opts.tolerances, self.opts.normwise, judge=self.judge)
        self.reset(self.cap, self.input_source)

    @staticmethod
    def prepare(model, inputs, opts, clock, label, faults, source) -> DiffRun:
        """Capture, start the float64 truth (a child, truth_fork.py: it needs the
        capture alone), lower, run the passes and start the native build."""
        clock.start("capture")
        cap = capture(model, inputs, opts.frontend)
        clock.lap("capture")
        forked = truth_fork.start(cap) if opts.judge == "float64" else None
        try:
            clock.start("lower")
            hooks = fault_hooks()  # the faults of an enclosing faults.inject block
            if cap.exported is not None:
                before = verify(from_export(cap.exported, hooks=hooks))
            else:
                before = verify(from_fx(model, inputs, gm=cap.gm, hooks=hooks))
            label = label or type(model).__name__
            run = DiffRun(
                opts, cap, before, clock, label, faults, hooks, input_source=source
            )
            run.forks = [forked] if forked is not None else []
            clock.lap("lower")
            run.build_all()
        except BaseException:
            if forked is not None:
                forked.close()
            raise
        return run

    def build_all(self) -> None:
        """The passes and the native build (started), for the stages asked for."""
        opts, clock = self.opts, self.clock
        if Stage.OPT in opts.stages or Stage.NATIVE in opts.stages:
            clock.start("passes")
            self.optimize()
            clock.lap("passes")
        if Stage.NATIVE in opts.stages:
            # LLVM optimizes in a child process while the truth and IR stages run
            clock.start("native-codegen")
            self.build = _start_build(self.after, opts, self.hooks)
            clock.lap("native-codegen")

    def reset(self, cap: Capture, source: str = "example inputs") -> None:
        """Start over on another batch (`cap`): a new report, no measurements."""
        self.cap, self.maps, self.twin, self.input_source = cap, {}, None, source
        self.report = self._new_report()
        self.expected = list(tree_flatten(_output_value(self.cap))[0])
        self.meter = Meter(self.cap.pointers())

    def _new_report(self) -> DiffReport:
        opts, inputs = self.opts, self.cap.inputs
        return DiffReport(
            model=self.label,
            inputs=[
                (tuple(x.shape), str(x.dtype).replace("torch.", "")) for x in inputs
            ],
            options={
                "opt_level": opts.opt_level,
                "enable_fusion": opts.enable_fusion,
                "pipeline": self.pipeline,
                "num_threads": opts.num_threads,
                "frontend": "export" if self.cap.exported is not None else "fx",
            },
            tolerances=dict(opts.tolerances),
            rows=self.cap.rows,
            stages=tuple(opts.stages),
            ir_before=print_module(self.before),
            ir_after=print_module(self.after) if self.after is not None else None,
            passes=list(getattr(self, "passes", [])),
            faults=list(self.faults),
            cwd=os.getcwd(),
            judge=self.judge.describe() if self.judge else {"kind": "normwise"},
            input_source=self.input_source,
        )

    def recorder(self, smap: StageMap, only: set[str] | None = None) -> Recorder:
        return Recorder(self.cap, smap, self.oracle, only, self.twin)

    def optimize(self) -> None:
        """The pass pipeline on a copy of the IR; the pass table and IR after it."""
        from cuvil.passes import run_passes

        self.after = run_passes(
            self.before.clone(), self.opts.compile_options(), self.hooks
        )
        self.passes = [
            {
                "name": p.name,
                "changed": p.changed,
                "actions": p.actions,
                "first_action": p.first_action,
                "last_action": p.last_action,
                "ms": round(p.seconds * 1e3, 3),
            }
            for p in self.after.passes
        ]
        self.report.passes = list(self.passes)
        self.report.ir_after = print_module(self.after)

    def measure(self) -> None:
        """This batch's truth and stages (the builds are the run's); judged again
        without a truth if a forked twin fails after the stages began to read it."""
        try:
            if self.judge is not None:
                self.clock.start("truth")
                self.twin = self._truth()
                self.clock.lap("truth")
            self._stages()
        except truth_fork.TruthLost as lost:
            self.reset(self.cap, self.input_source)
            self.report.notes.append(lost.note)
            self._stages()

    def _truth(self) -> Twin | None:
        """This batch's twin: the child's started with the capture, or a child of
        its own (a trial's batch), or computed here (truth_fork.enabled)."""
        forked = self.forks[-1] if self.forks else None
        if forked is None or forked.cap is not self.cap:
            forked = truth_fork.start(self.cap)
            self.forks += [forked] if forked is not None else []
        return truth_fork.twin_of(self.cap, forked, self.report.notes)

    def _stages(self) -> None:
        """The stages asked for, ``opt`` first: it takes longest, and a forked twin
        (still computing when the stages begin) keeps any stage waiting that walks
        faster than it. What they report reads in the stages' own order."""
        notes, added = self.report.notes, {}
        for stage in RUN_ORDER:
            if stage in self.opts.stages:
                start = len(notes)
                self.clock.start(stage.value)
                self._stage(stage)
                added[stage] = notes[start:]
                del notes[start:]
        for stage in STAGES:
            notes.extend(added.get(stage, ()))
        ok = self.report.outputs_ok
        self.report.outputs_ok = {s: ok[s] for s in STAGES if s in ok}

    def _stage(self, stage: Stage) -> None:
        if stage == Stage.NATIVE:
            self.native(self.build)  # its clock laps are its own
            return
        if stage == Stage.IR:
            self.interpret(Stage.IR, self.before, exact=self.before.fx_values)
        else:
            self.interpret(Stage.OPT, self.after)
        self.clock.lap(stage.value)

    def interpret(self, stage: Stage, module: Module, exact=None) -> None:
        """Stage ``ir`` or ``opt``: map the nodes onto `module` and interpret it."""
        smap = self.maps[stage] = map_stage(module, self.cap.rows, self.names, exact)
        try:
            outs = walk_ir(module, self.cap.inputs, self.recorder(smap), self.meter)
        except CuvilError as e:
            self._failed(stage, smap, e)
            return
        self.report.outputs_ok[stage] = self._outputs_ok(outs)

    def _outputs_ok(self, outs) -> bool:
        truths = self.twin.outputs if self.twin is not None else None
        return self.oracle.compare(outs, self.expected, truths=truths).ok

    def native(self, build: NativeBuild | CuvilError) -> None:
        """Stage ``native``: the optimized module's kernels, one call at a time."""
        smap = self.maps[Stage.NATIVE] = map_stage(
            self.after, self.cap.rows, self.names
        )
        try:
            if isinstance(build, CuvilError):
                raise build
            build.wait()
            self.clock.lap("native-compile")
            outs = walk_native(build, self.cap.inputs, self.recorder(smap), self.meter)
        except CuvilError as e:
            self._failed(Stage.NATIVE, smap, e)
            return
        finally:
            self.clock.lap("native")
            if not isinstance(build, CuvilError) and build.twin_seconds:
                timings = self.clock.timings  # the lazy twin's build is compilation
                timings["native"] -= build.twin_seconds
                timings["twin-compile"] = build.twin_seconds
                build.twin_seconds = 0.0
        self.report.memory["arena"] = build.arena_bytes
        self.report.memory["twins"] = build.twins
        _unmeasured_members(smap, self.opts.members)
        self.report.outputs_ok[Stage.NATIVE] = self._outputs_ok(outs)
        _name_kernels(smap, build.symbols(), self.after)

    def _failed(self, stage: Stage, smap: StageMap, e: CuvilError) -> None:
        self.report.notes.append(f"stage {stage} failed: {e}")
        self.report.outputs_ok[stage] = False
        for result in smap.results.values():
            if result.status in COMPARED and result.propagated is None:
                result.status = Status.FAILED
                result.note = str(e).splitlines()[0]

    def gather(self) -> None:
        """Every row's stage results (the report's rows, ready to read)."""
        for row in self.cap.rows:
            for stage in self.opts.stages:
                row.stages[stage] = self.maps[stage].results[row.name]

    def conclude(self) -> None:
        """Every row's stage results, the first divergence and its culprit."""
        self.clock.start("analysis")
        report, cap = self.report, self.cap
        self.gather()
        report.first = first_divergence(report)
        if report.first is not None:
            explain(self, report.first)
        self.clock.lap("analysis")
        report.timings = self.clock.timings
        report.memory["eager"] = cap.nbytes()
        report.memory["peak_live"] = self.meter.peak
        if self.twin is not None:
            report.memory["truth"] = self.twin.nbytes()


@contextlib.contextmanager
def _one_thread():
    """torch at one thread for the whole diff: many small ops, and LLVM's children
    compiling on the other cores (two OpenMP threads spinning on a busy core run many
    times slower than one: measured 18 s against 1.8 s for ResNet-18's native stage
    on a loaded 2-core machine)."""
    saved = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(saved)


def _output_value(cap: Capture):
    out = [n for n in cap.gm.graph.nodes if n.op == "output"][0]
    return cap.eager[out.name]


def _start_build(
    after: Module, opts: DiffOptions, hooks: CompileHooks | None
) -> NativeBuild | CuvilError:
    """The native build, started in the background (a failure is the native stage's
    to report)."""
    try:
        return NativeBuild.start(
            after,
            opts.opt_level,
            opts.num_threads,
            opts.members,
            hooks,
            break_on=opts.compile.break_on,
            twin_hooks=_twin_hooks,
        )
    except CuvilError as e:
        return e


def _twin_hooks(nodes: set[str]) -> CompileHooks | None:
    """The kernel faults (of the enclosing faults.inject block) a twin build holding
    FX nodes `nodes` gets: those naming one of them (a twin lacks the others)."""
    from ..faults import active

    chosen = [f for f in active() if f.stage == "kernel" and f.node in nodes]
    return fault_hooks(chosen) if chosen else None


def _unmeasured_members(smap: StageMap, members: str) -> None:
    """Say why a fused member has no native value (native.py, ``members``)."""
    why = {
        "auto": "not measured: its fused kernel's output is no worse than eager "
        "(--members all measures every member)",
        "none": "not measured (--members none)",
    }.get(members)
    for result in smap.results.values():
        if result.status == Status.FUSED and result.propagated is None and why:
            result.note = result.note or why


def _name_kernels(smap: StageMap, symbols: dict[int, str], after: Module) -> None:
    """Native stage results name the kernel that computes their value."""
    ops = {r.name: op for op in after.main.ops for r in op.results}
    for result in smap.results.values():
        if result.status in (Status.VALUE, Status.ALIAS) and result.value in ops:
            result.kernel = symbols.get(id(ops[result.value]), result.kernel)
        elif result.status == Status.FUSED and result.kernel:
            fused = ops.get(result.kernel)
            if fused is not None:
                result.kernel = symbols.get(id(fused), result.kernel)
