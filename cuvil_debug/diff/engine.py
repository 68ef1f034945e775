"""``run_diff``: every FX node of a model, compared across the compiler's stages.

capture (trace + eager values)
  -> ir      lower; map nodes; static check; interpret (propagated + isolated)
  -> opt     run the pass pipeline; map; check; interpret (fused bodies expanded)
  -> native  generate + JIT the optimized module (the normal build, steppable); run
             kernel by kernel; fused members recomputed by the unfused build
  -> first divergence: the earliest node (graph order) whose isolated error exceeds
     the tolerance, in the earliest stage that shows it; for ``opt`` the pass that
     introduced it (passes re-run one by one, the node re-measured after each).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch
from torch.utils._pytree import tree_flatten

from cuvil.errors import CuvilError
from cuvil.frontend.export import from_export
from cuvil.frontend.fx import from_fx
from cuvil.frontend.modules import MODULE_LOWERINGS
from cuvil.frontend.registry import lookup
from cuvil.ir.core import Module
from cuvil.ir.printer import print_module
from cuvil.ir.verifier import verify
from cuvil.passes import PassContext, PassPipeline, default_pipeline
from cuvil.pipeline import Options

from ..faults import hooks as fault_hooks
from .capture import Capture, capture
from .mapping import StageMap, fx_value_names, map_stage
from .metrics import DEFAULT_TOLERANCES, compare, tolerance_for
from .model import STAGES, DiffReport, Divergence, StageResult, Tolerance
from .stages import Meter, Recorder, inline_fused, walk_ir, walk_native

__all__ = ["DiffOptions", "run_diff"]


@dataclass(frozen=True)
class DiffOptions:
    """What to compile and how to compare. Compile options are ``cuvil.compile``'s."""

    opt_level: str = "O3"
    enable_fusion: bool = True
    frontend: str = "fx"  # fx (torch.fx tracing) | export (torch.export, ATen graph)
    pipeline: str | None = None
    num_threads: int = 1
    stages: tuple[str, ...] = STAGES
    tolerances: dict[str, Tolerance] = field(
        default_factory=lambda: dict(DEFAULT_TOLERANCES)
    )
    members: bool = True  # recompute values inside fused kernels natively
    normwise: bool = True  # tolerance against the tensor's scale (False: elementwise)
    attribute_pass: bool = True  # find the pass behind an opt-stage divergence

    def compile_options(self) -> Options:
        return Options(
            frontend=self.frontend,
            opt_level=self.opt_level,
            enable_fusion=self.enable_fusion,
            pipeline=self.pipeline,
            num_threads=self.num_threads,
        )


def run_diff(
    model: torch.nn.Module,
    inputs: Sequence[torch.Tensor],
    options: DiffOptions | None = None,
    label: str | None = None,
    faults: Sequence[str] = (),
) -> DiffReport:
    """Diff `model` on `inputs` through every stage (see the module docstring)."""
    opts = options or DiffOptions()
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[name] = timings.get(name, 0.0) + now - clock
        clock = now

    cap = capture(model, inputs, opts.frontend)
    lap("capture")
    hooks = fault_hooks()  # the faults of an enclosing faults.inject block, if any
    extras = hooks.passes if hooks is not None else ()
    if cap.exported is not None:
        before = verify(from_export(cap.exported, hooks=hooks))
    else:
        before = verify(from_fx(model, inputs, gm=cap.gm, hooks=hooks))
    names = fx_value_names(before)
    report = DiffReport(
        model=label or type(model).__name__,
        inputs=[(tuple(x.shape), str(x.dtype).replace("torch.", "")) for x in inputs],
        options={
            "opt_level": opts.opt_level,
            "enable_fusion": opts.enable_fusion,
            "pipeline": opts.pipeline
            or default_pipeline(opts.opt_level, opts.enable_fusion, extras),
            "num_threads": opts.num_threads,
            "frontend": opts.frontend,
        },
        tolerances=dict(opts.tolerances),
        rows=cap.rows,
        stages=tuple(opts.stages),
        ir_before=print_module(before),
        faults=list(faults),
    )
    expected = [t for t in tree_flatten(_output_value(cap))[0]]
    lap("lower")

    maps: dict[str, StageMap] = {}
    meter = Meter(cap.pointers())
    after = builds = None
    if "opt" in opts.stages or "native" in opts.stages:
        after = _optimize(before, opts, report)
        lap("passes")
    if "native" in opts.stages:
        # LLVM works on the native builds in child processes while the IR stages run
        builds = _start_builds(after, opts)
        lap("native-codegen")
    with _share_cores(builds is not None):
        if "ir" in opts.stages:
            maps["ir"] = map_stage(before, cap.rows, names, exact=before.fx_values)
            _run_stage(report, "ir", maps["ir"], expected, cap, opts, before, meter)
            lap("ir")
        if "opt" in opts.stages:
            maps["opt"] = map_stage(after, cap.rows, names)
            _run_stage(report, "opt", maps["opt"], expected, cap, opts, after, meter)
            lap("opt")
    if "native" in opts.stages:
        maps["native"] = map_stage(after, cap.rows, names)
        _run_native(
            report, maps["native"], expected, cap, opts, after, lap, meter, builds
        )
    for row in cap.rows:
        for stage in opts.stages:
            row.stages[stage] = maps[stage].results[row.name]
    report.first = _first_divergence(report)
    if report.first is not None:
        _explain(report, report.first, before, cap, names, opts)
    lap("analysis")
    report.timings = timings
    report.memory["eager"] = cap.nbytes()
    report.memory["peak_live"] = meter.peak
    return report


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


def _optimize(before: Module, opts: DiffOptions, report) -> Module:
    from cuvil.passes import run_passes

    after = run_passes(before.clone(), opts.compile_options(), fault_hooks())
    report.passes = [
        {
            "name": p.name,
            "changed": p.changed,
            "actions": p.actions,
            "first_action": p.first_action,
            "last_action": p.last_action,
            "ms": round(p.seconds * 1e3, 3),
        }
        for p in after.passes
    ]
    report.ir_after = print_module(after)
    return after


def _run_stage(report, stage, smap, expected, cap, opts, module, meter) -> None:
    rec = Recorder(cap, smap, opts.tolerances, normwise=opts.normwise)
    try:
        outs = walk_ir(module, cap.inputs, rec, meter)
    except CuvilError as e:
        _stage_failed(report, stage, smap, e)
        return
    report.outputs_ok[stage] = _outputs_ok(outs, expected, opts)


def _start_builds(after: Module, opts: DiffOptions):
    """The steppable build of the optimized module and, when it has fused kernels, of
    its unfused twin (members recomputed natively); LLVM runs in the background."""
    from cuvil.runtime.stepper import Stepper

    try:
        hooks = fault_hooks()
        stepper = Stepper(
            after, opts.opt_level, opts.num_threads, background=True, hooks=hooks
        )
        twin = None
        if opts.members and any(op.name == "cuvil.fused" for op in after.main.ops):
            t_module, members = inline_fused(after)
            t_stepper = Stepper(
                t_module,
                _twin_level(opts.opt_level),
                opts.num_threads,
                background=True,
                hooks=hooks,
            )
            twin = (t_stepper, t_module, members)
    except CuvilError as e:
        return e
    return stepper, twin


def _twin_level(opt_level: str) -> str:
    """The unfused twin only recomputes fused members: LLVM's O1 gives the same numbers
    (no fast-math anywhere) and compiles its many small kernels 2-3x faster than O3."""
    return "O1" if opt_level in ("O2", "O3") else opt_level


def _run_native(report, smap, expected, cap, opts, after, lap, meter, builds) -> None:
    rec = Recorder(cap, smap, opts.tolerances, normwise=opts.normwise)
    try:
        if isinstance(builds, CuvilError):
            raise builds
        stepper, twin = builds
        stepper.jit  # noqa: B018  (wait for the background builds)
        if twin:
            twin[0].jit  # noqa: B018
        lap("native-compile")
        report.memory["arena"] = stepper.program.arena_bytes + (
            twin[0].program.arena_bytes if twin else 0
        )
        outs = walk_native(after, stepper, cap.inputs, rec, twin, meter)
    except CuvilError as e:
        _stage_failed(report, "native", smap, e)
        return
    finally:
        lap("native")
    report.outputs_ok["native"] = _outputs_ok(outs, expected, opts)
    kernels = {k.call_index: k.symbol for k in stepper.program.kernels}
    symbols = {
        id(s.op): kernels.get(s.index, s.symbol)
        for s in stepper.steps
        if s.op is not None
    }
    ops = {r.name: op for op in after.main.ops for r in op.results}
    for result in smap.results.values():
        if result.status in ("value", "alias") and result.value in ops:
            result.kernel = symbols.get(id(ops[result.value]), result.kernel)
        elif result.status == "fused" and result.kernel:
            fused = ops.get(result.kernel)
            if fused is not None:
                result.kernel = symbols.get(id(fused), result.kernel)


def _stage_failed(report, stage: str, smap: StageMap, e: CuvilError) -> None:
    report.notes.append(f"stage {stage} failed: {e}")
    report.outputs_ok[stage] = False
    for result in smap.results.values():
        if result.status in ("value", "alias", "fused") and result.propagated is None:
            result.status = "failed"
            result.note = str(e).splitlines()[0]


def _outputs_ok(outs, expected, opts: DiffOptions) -> bool:
    if len(outs) != len(expected):
        return False
    for a, b in zip(outs, expected):
        if not compare(a, b, tolerance_for(b.dtype, opts.tolerances), opts.normwise).ok:
            return False
    return True


# ---- the first divergence ------------------------------------------------------------------
def _first_divergence(report: DiffReport) -> Divergence | None:
    for row in report.rows:
        for stage in report.stages:
            s = row.stages.get(stage)
            if s is None:
                continue
            if s.introduced or (s.static and not _static_earlier(row, stage, report)):
                m = s.isolated
                return Divergence(
                    node=row.name,
                    stage=stage,
                    source=row.source,
                    code=row.code,
                    reason=_reason(s, report.tolerances, row.dtype),
                    culprit="",
                    metrics=m,
                    output_affected=not report.outputs_ok.get(stage, True),
                )
    return None


def _static_earlier(row, stage: str, report: DiffReport) -> bool:
    for earlier in report.stages[: report.stages.index(stage)]:
        s = row.stages.get(earlier)
        if s is not None and s.static:
            return True
    return False


def _reason(s: StageResult, tolerances: dict[str, Tolerance], dtype: str | None) -> str:
    if s.static:
        return "static check: " + "; ".join(s.static)
    m = s.isolated
    tol = tolerances.get(dtype or "", Tolerance(0, 0))
    if m is None:
        return "diverges"
    if not m.shape_ok:
        return "shape differs from eager"
    bits = []
    if m.nan or m.inf:
        bits.append(f"{m.nan} new NaN, {m.inf} new Inf")
    if not m.dtype.startswith("f"):
        bits.append(f"{m.mismatched} of {m.numel} elements differ")
    else:
        bits.append(
            f"max abs error {m.max_abs:.3g} > atol {tol.atol:g} + rtol {tol.rtol:g} "
            f"x max|eager| ({m.mismatched} of {m.numel} elements off, "
            f"max rel {m.max_rel:.3g}) with exact inputs"
        )
    return "; ".join(bits)


def _explain(report, first: Divergence, before, cap, names, opts) -> None:
    """Name the culprit: the lowering rule, the pass, or the kernel."""
    row = report.row(first.node)
    s = row.stages[first.stage]
    if first.stage == "ir":
        first.culprit = f"frontend: the lowering of {row.target} ({_rule(cap, row)})"
    elif first.stage == "opt":
        name = (
            _find_pass(before, cap, names, opts, first.node)
            if (opts.attribute_pass)
            else None
        )
        first.pass_name = name
        first.culprit = f"pass {name}" if name else "the pass pipeline"
    else:
        kernel = s.kernel or "?"
        first.culprit = (
            f"code generation: kernel {kernel} ({s.op}) — or LLVM's optimizer; "
            "`cuvil-debug bisect` tells them apart"
        )


def _rule(cap: Capture, row) -> str:
    node = next(n for n in cap.gm.graph.nodes if n.name == row.name)
    if node.op == "call_module":
        rule = MODULE_LOWERINGS.get(type(cap.gm.get_submodule(str(node.target))))
    elif node.op in ("call_function", "call_method"):
        rule = lookup(node.target)
    else:
        rule = None
    if rule is None:
        return "no rule: evaluated at compile time"
    return (
        f"rule {getattr(rule, '__module__', '?')}.{getattr(rule, '__qualname__', rule)}"
    )


def _find_pass(before, cap, names, opts, node: str) -> str | None:
    """Re-run the pipeline pass by pass; after each pass that changed the IR, measure
    `node` in isolation: the first pass after which it diverges introduced the error."""
    module = before.clone()
    hooks = fault_hooks()
    extras = hooks.passes if hooks is not None else ()
    text = opts.pipeline or default_pipeline(opts.opt_level, opts.enable_fusion, extras)
    found: list[str] = []

    def check(pass_, before, after, info) -> None:
        if found or not info.changed:
            return
        smap = map_stage(after, cap.rows, names)
        if smap.results[node].status not in ("value", "alias", "fused"):
            return
        rec = Recorder(cap, smap, opts.tolerances, {node}, opts.normwise)
        try:
            walk_ir(after, cap.inputs, rec)
        except CuvilError:
            found.append(pass_.spec())
            return
        if smap.results[node].introduced:
            found.append(pass_.spec())

    PassPipeline(text, check).run(module, PassContext())
    return found[0] if found else None
