"""The first divergence of a diff and its culprit.

The first divergence is the earliest node (graph order) whose isolated error exceeds the
tolerance (or whose static check fails first), in the earliest stage that shows it. Its
culprit: in ``ir`` the frontend's lowering rule; in ``opt`` the pass that introduced it
(the pipeline re-run pass by pass, the node re-measured after each); in ``native`` the
kernel (or LLVM's optimizer: ``bisect`` tells them apart).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cuvil.errors import CuvilError
from cuvil.frontend.modules import MODULE_LOWERINGS
from cuvil.frontend.registry import lookup
from cuvil.passes import PassContext, PassPipeline

from .capture import Capture
from .mapping import map_stage
from .model import DiffReport, Divergence, StageResult, Tolerance
from .stages import walk_ir
from .status import COMPARED, Stage

if TYPE_CHECKING:
    from .engine import DiffRun

__all__ = ["first_divergence", "explain"]


def first_divergence(report: DiffReport) -> Divergence | None:
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
    if m.lost_nan:
        bits.append(f"{m.lost_nan} NaN of eager and float64 lost")
    if not m.dtype.startswith(("f", "bf")):
        bits.append(f"{m.mismatched} of {m.numel} elements differ")
    elif m.judge == "float64" and m.truth is not None and m.eager is not None:
        bits.append(f"{judged_words(m)} with exact inputs")
    else:
        bits.append(
            f"max abs error {m.max_abs:.3g} > atol {tol.atol:g} + rtol {tol.rtol:g} "
            f"x max|eager| ({m.mismatched} of {m.numel} elements off, "
            f"max rel {m.max_rel:.3g}) with exact inputs"
        )
    return "; ".join(bits)


def judged_words(m) -> str:
    """The float64 judge's verdict on `m` in words (the ``why`` line)."""
    what = "RMSE" if m.measure == "rmse" else "max abs error"
    t, e = m.truth, m.eager
    err, eager = getattr(t, m.measure), getattr(e, m.measure)
    times = f"{err / eager:.3g}x" if eager > 0 else "more than"
    return (
        f"{what} against float64 {err:.3g} > bound {m.bound:.3g}: {times} eager-"
        f"float32's {eager:.3g} (max abs {t.max_abs:.3g} vs {e.max_abs:.3g}, "
        f"max {t.max_ulp:.3g} vs {e.max_ulp:.3g} ulp)"
    )


def explain(run: DiffRun, first: Divergence) -> None:
    """Name the culprit: the lowering rule, the pass, or the kernel."""
    row = run.report.row(first.node)
    s = row.stages[first.stage]
    if first.stage == Stage.IR:
        first.culprit = (
            f"frontend: the lowering of {row.target} ({_rule(run.cap, row)})"
        )
    elif first.stage == Stage.OPT:
        name = _find_pass(run, first.node) if run.opts.attribute_pass else None
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


def _find_pass(run: DiffRun, node: str) -> str | None:
    """Re-run the pipeline pass by pass; after each pass that changed the IR, measure
    `node` in isolation: the first pass after which it diverges introduced the error."""
    module = run.before.clone()
    found: list[str] = []

    def check(pass_, before, after, info) -> None:
        if found or not info.changed:
            return
        smap = map_stage(after, run.cap.rows, run.names)
        if smap.results[node].status not in COMPARED:
            return
        rec = run.recorder(smap, {node})
        try:
            walk_ir(after, run.cap.inputs, rec)
        except CuvilError:
            found.append(pass_.spec())
            return
        if smap.results[node].introduced:
            found.append(pass_.spec())

    PassPipeline(run.pipeline, check).run(module, PassContext())
    return found[0] if found else None
