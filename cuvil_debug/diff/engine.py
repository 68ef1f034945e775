"""``run_diff``: every FX node of a model, compared across the compiler's stages.

capture (trace + eager values)
  -> ir      lower; map nodes; static check; interpret (propagated + isolated)
  -> opt     run the pass pipeline; map; check; interpret (fused bodies expanded)
  -> native  generate + JIT the optimized module (the normal build, steppable); run
             kernel by kernel; fused members recomputed by the unfused build
  -> first divergence: the earliest node (graph order) whose isolated error exceeds
     the tolerance, in the earliest stage that shows it; for ``opt`` the pass that
     introduced it (passes re-run one by one, the node re-measured after each).

One `DiffRun` holds what the stage runners share: options, capture, the IR before and
after passes, node names, the oracle, the memory meter, the clock and the report.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import torch
from torch.utils._pytree import tree_flatten

from cuvil.errors import CuvilError
from cuvil.frontend.export import from_export
from cuvil.frontend.fx import from_fx
from cuvil.hooks import CompileHooks
from cuvil.ir.core import Module
from cuvil.ir.printer import print_module
from cuvil.ir.verifier import verify
from cuvil.options import CompileOptions
from cuvil.passes import default_pipeline

from ..faults import hooks as fault_hooks
from .capture import Capture, capture
from .explain import explain, first_divergence
from .mapping import StageMap, fx_value_names, map_stage
from .metrics import DEFAULT_TOLERANCES
from .model import STAGES, DiffReport, Tolerance
from .oracle import Oracle
from .progress import DONE
from .stages import Meter, NativeBuild, Recorder, walk_ir, walk_native
from .status import COMPARED, Stage, Status

__all__ = ["DiffOptions", "DiffRun", "run_diff"]


@dataclass(frozen=True, init=False)
class DiffOptions:
    """What to compile (`compile`: cuvil.compile's CompileOptions) and how to compare.

    ``DiffOptions(opt_level="O2", members=False)``: CompileOptions' own keywords
    (opt_level, enable_fusion, frontend, pipeline, num_threads, ...) change `compile`
    (default: ``CompileOptions()``); the others are the diff's."""

    compile: CompileOptions
    stages: tuple[str, ...] = STAGES
    tolerances: dict[str, Tolerance] = field(
        default_factory=lambda: dict(DEFAULT_TOLERANCES)
    )
    members: bool = True  # recompute values inside fused kernels natively
    normwise: bool = True  # tolerance against the tensor's scale (False: elementwise)
    attribute_pass: bool = True  # find the pass behind an opt-stage divergence

    def __init__(
        self,
        compile: CompileOptions | None = None,
        *,
        stages: tuple[str, ...] = STAGES,
        tolerances: dict[str, Tolerance] | None = None,
        members: bool = True,
        normwise: bool = True,
        attribute_pass: bool = True,
        **compile_fields,
    ) -> None:
        own = {
            "compile": replace(compile or CompileOptions(), **compile_fields),
            "stages": stages,
            "tolerances": dict(DEFAULT_TOLERANCES)
            if tolerances is None
            else tolerances,
            "members": members,
            "normwise": normwise,
            "attribute_pass": attribute_pass,
        }
        for name, value in own.items():
            object.__setattr__(self, name, value)

    def compile_options(self) -> CompileOptions:
        return self.compile

    # read-only views of `compile` for the stages
    opt_level = property(lambda self: self.compile.opt_level)
    enable_fusion = property(lambda self: self.compile.enable_fusion)
    frontend = property(lambda self: self.compile.frontend)
    pipeline = property(lambda self: self.compile.pipeline)
    num_threads = property(lambda self: self.compile.num_threads)


def run_diff(
    model: torch.nn.Module,
    inputs: Sequence[torch.Tensor],
    options: DiffOptions | None = None,
    label: str | None = None,
    faults: Sequence[str] = (),
    progress: Callable[[str], None] | None = None,
) -> DiffReport:
    """Diff `model` on `inputs` through every stage (see the module docstring).
    `progress` is called with each phase's name as it starts (progress.PHASES) and
    with "done" at the end."""
    opts = options or DiffOptions()
    clock = _Clock(progress)
    clock.start("capture")
    cap = capture(model, inputs, opts.frontend)
    clock.lap("capture")
    clock.start("lower")
    hooks = fault_hooks()  # the faults of an enclosing faults.inject block, if any
    if cap.exported is not None:
        before = verify(from_export(cap.exported, hooks=hooks))
    else:
        before = verify(from_fx(model, inputs, gm=cap.gm, hooks=hooks))
    label = label or type(model).__name__
    run = DiffRun(opts, cap, before, clock, label, faults, hooks)
    clock.lap("lower")

    builds = None
    if Stage.OPT in opts.stages or Stage.NATIVE in opts.stages:
        clock.start("passes")
        run.optimize()
        clock.lap("passes")
    if Stage.NATIVE in opts.stages:
        # LLVM works on the native builds in child processes while the IR stages run
        clock.start("native-codegen")
        builds = _start_builds(run.after, opts, hooks)
        clock.lap("native-codegen")
    with _share_cores(builds is not None):
        if Stage.IR in opts.stages:
            clock.start("ir")
            run.interpret(Stage.IR, before, exact=before.fx_values)
            clock.lap("ir")
        if Stage.OPT in opts.stages:
            clock.start("opt")
            run.interpret(Stage.OPT, run.after)
            clock.lap("opt")
    if Stage.NATIVE in opts.stages:
        clock.start("native")
        run.native(builds)
    clock.start("analysis")
    run.conclude()
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
    after passes, node names, the oracle) and writes (the report, the stage maps)."""

    opts: DiffOptions
    cap: Capture
    before: Module  # the IR straight from the frontend
    clock: _Clock
    label: str
    faults: Sequence[str] = ()
    hooks: CompileHooks | None = None  # the compile's seams (injected faults)
    after: Module | None = None  # the IR after the pass pipeline
    maps: dict[Stage, StageMap] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.names = fx_value_names(self.before)
        extras = self.hooks.passes if self.hooks is not None else ()
        self.pipeline = self.opts.pipeline or default_pipeline(
            self.opts.opt_level, self.opts.enable_fusion, extras
        )
        self.report = self._new_report()
        self.expected = list(tree_flatten(_output_value(self.cap))[0])
        self.oracle = Oracle(self.opts.tolerances, self.opts.normwise)
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
            faults=list(self.faults),
            cwd=os.getcwd(),
        )

    def recorder(self, smap: StageMap, only: set[str] | None = None) -> Recorder:
        return Recorder(self.cap, smap, self.oracle, only)

    def optimize(self) -> None:
        """The pass pipeline on a copy of the IR; the pass table and IR after it."""
        from cuvil.passes import run_passes

        self.after = run_passes(
            self.before.clone(), self.opts.compile_options(), self.hooks
        )
        self.report.passes = [
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
        self.report.ir_after = print_module(self.after)

    def interpret(self, stage: Stage, module: Module, exact=None) -> None:
        """Stage ``ir`` or ``opt``: map the nodes onto `module` and interpret it."""
        smap = self.maps[stage] = map_stage(module, self.cap.rows, self.names, exact)
        try:
            outs = walk_ir(module, self.cap.inputs, self.recorder(smap), self.meter)
        except CuvilError as e:
            self._failed(stage, smap, e)
            return
        self.report.outputs_ok[stage] = self.oracle.compare(outs, self.expected).ok

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
            self.report.memory["arena"] = build.arena_bytes
            outs = walk_native(build, self.cap.inputs, self.recorder(smap), self.meter)
        except CuvilError as e:
            self._failed(Stage.NATIVE, smap, e)
            return
        finally:
            self.clock.lap("native")
        self.report.outputs_ok[Stage.NATIVE] = self.oracle.compare(
            outs, self.expected
        ).ok
        _name_kernels(smap, build.symbols(), self.after)

    def _failed(self, stage: Stage, smap: StageMap, e: CuvilError) -> None:
        self.report.notes.append(f"stage {stage} failed: {e}")
        self.report.outputs_ok[stage] = False
        for result in smap.results.values():
            if result.status in COMPARED and result.propagated is None:
                result.status = Status.FAILED
                result.note = str(e).splitlines()[0]

    def conclude(self) -> None:
        """Every row's stage results, the first divergence and its culprit."""
        report, cap = self.report, self.cap
        for row in cap.rows:
            for stage in self.opts.stages:
                row.stages[stage] = self.maps[stage].results[row.name]
        report.first = first_divergence(report)
        if report.first is not None:
            explain(self, report.first)
        self.clock.lap("analysis")
        report.timings = self.clock.timings
        report.memory["eager"] = cap.nbytes()
        report.memory["peak_live"] = self.meter.peak


@contextlib.contextmanager
def _share_cores(busy: bool):
    """While LLVM children compile, torch gets one thread: two OpenMP threads spinning
    on cores the children use run many times slower than one."""
    if not busy:
        yield
        return
    saved = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(saved)


def _output_value(cap: Capture):
    out = [n for n in cap.gm.graph.nodes if n.op == "output"][0]
    return cap.eager[out.name]


def _start_builds(
    after: Module, opts: DiffOptions, hooks: CompileHooks | None
) -> NativeBuild | CuvilError:
    """The native builds, started in the background (a failure is the native stage's
    to report)."""
    try:
        return NativeBuild.start(
            after,
            opts.opt_level,
            opts.num_threads,
            opts.members,
            hooks,
            break_on=opts.compile.break_on,
        )
    except CuvilError as e:
        return e


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
