"""The diff's data model: what ``cuvil-debug diff`` found, per FX node and per stage.

Every output format (terminal table, JSON, HTML, DOT) is rendered from a `DiffReport`;
nothing else is shared between the engine and the renderers. ``DiffReport.to_json()`` is
the versioned JSON document (docs/DIFF.md describes it field by field).

Stages, in compiler order (``eager`` is the reference every other stage is compared to):

    eager    torch.fx.Interpreter over the traced graph (the model as PyTorch runs it)
    ir       Cuvil IR straight from the frontend, run by the reference interpreter
    opt      Cuvil IR after the pass pipeline, reference interpreter (fused bodies expanded)
    native   the generated machine code (kernels called one by one)

Each compared value is measured twice: *propagated* (the stage fed its own upstream values,
the error a user sees) and *isolated* (the node's ops fed the eager values of their
inputs: the error this node adds by itself). An isolated error means the node *introduced*
the divergence in that stage; a propagated error with a clean isolated run is *inherited*.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from .status import Stage, Status

__all__ = [
    "SCHEMA_VERSION",
    "STAGES",
    "STAGE_TITLES",
    "Metrics",
    "Tolerance",
    "TruthError",
    "StageResult",
    "NodeRow",
    "Divergence",
    "DiffReport",
]

SCHEMA_VERSION = 1
STAGES = (Stage.IR, Stage.OPT, Stage.NATIVE)  # compared against Stage.EAGER
STAGE_TITLES = {
    Stage.EAGER: "PyTorch eager (torch.fx.Interpreter)",
    Stage.IR: "Cuvil IR before passes (reference interpreter)",
    Stage.OPT: "Cuvil IR after passes (reference interpreter)",
    Stage.NATIVE: "native code (kernel by kernel)",
}

# How each FX node is represented in a stage (StageResult.status):
STATUSES = {
    Status.VALUE: "the node's value exists in this stage and was compared",
    Status.ALIAS: "the node lowered to no op: its value is another node's (view, "
    "identity)",
    Status.FUSED: "computed inside a fused kernel; materialized by recomputing the "
    "kernel's members from its inputs",
    Status.FOLDED: "folded into another op (e.g. conv+batch-norm): no value of its own",
    Status.REMOVED: "no op of this stage comes from the node (dead code, or dropped)",
    Status.CONSTANT: "evaluated at compile time (sizes, shapes, Python values): no "
    "tensor",
    Status.FAILED: "the stage could not run this node (see note)",
    Status.NOT_RUN: "the stage was not run (an earlier stage failed, or --stages)",
}


@dataclass(frozen=True)
class Tolerance:
    """A value passes when ``|a - b| <= atol + rtol * |b|`` everywhere (torch.allclose)."""

    rtol: float
    atol: float


@dataclass(frozen=True)
class TruthError:
    """A value's error against its float64 truth (cuvil_debug/diff/judge.py)."""

    rmse: float  # root mean square of (value - truth)
    max_abs: float  # max |value - truth|
    max_ulp: float  # max |value - truth| in units in the last place of the dtype


@dataclass
class Metrics:
    """How far a stage's value is from the eager value of the same node (and, judged
    against float64, how far both are from the truth)."""

    numel: int
    dtype: str
    ok: bool  # within tolerance (floats) / exactly equal (ints, bools)
    max_abs: float = 0.0
    max_rel: float = 0.0
    max_ulp: float = 0.0  # units in the last place of the reference's dtype (floats)
    cosine: float | None = None  # None when either side is all zeros
    sqnr_db: float | None = None  # signal-to-quantization-noise; inf when exact
    mismatched: int = 0  # elements outside the tolerance (or unequal, for ints)
    nan: int = 0  # NaN in the stage's value where the reference has none
    inf: int = 0  # Inf in the stage's value where the reference has none
    # float64 judge: a number in the stage's value where eager and the float64 truth
    # both have NaN (a NaN the stage lost: 0 * inf computed as 0)
    lost_nan: int = 0
    shape_ok: bool = True  # False: the shapes differ; nothing else was measured
    worst_index: tuple[int, ...] | None = None  # where max_abs was reached
    # which rule decided `ok`: "float64" (the stage no further from the float64 truth
    # than eager-float32, times the judge's factor) or "normwise" (the tolerances)
    judge: str = "normwise"
    truth: TruthError | None = None  # float64 judge: this stage's error
    eager: TruthError | None = None  # float64 judge: eager's error (the same span)
    # what the judged error had to stay under: float64: `truth`'s rmse (`measure`
    # "rmse") or max abs ("max", --elementwise); normwise: max_abs (None: elementwise)
    bound: float | None = None
    measure: str = "max_abs"  # which error `bound` applies to: rmse | max_abs

    @property
    def exact(self) -> bool:
        return self.shape_ok and self.mismatched == 0 and self.max_abs == 0.0

    @property
    def excess(self) -> float | None:
        """The measured error over what it had to stay under (> 1: fails), or None."""
        if self.bound is None:
            return None
        source = self.truth if self.truth is not None else self
        err = getattr(source, self.measure, self.max_abs)
        if self.bound > 0:
            return err / self.bound
        return math.inf if err > 0 else 0.0

    def score(self) -> float:
        """One number to sort by: max abs error, infinite for shape/NaN problems."""
        if not self.shape_ok or self.nan or self.inf or self.lost_nan:
            return math.inf
        return self.max_abs


@dataclass
class StageResult:
    """One FX node in one stage."""

    status: Status  # a key of STATUSES
    value: str | None = None  # the IR value's name (%name) that holds the node's value
    op: str | None = None  # the op that computed it, e.g. "cuvil.conv2d"
    kernel: str | None = None  # native: the kernel symbol; opt: the fused op's value
    with_nodes: tuple[str, ...] = ()  # fused/folded: the other FX nodes of that op
    layout: str | None = None  # the value's layout in this stage ("nhwc", ...)
    propagated: Metrics | None = None
    isolated: Metrics | None = None
    static: list[str] = field(default_factory=list)  # static check problems
    note: str | None = None

    @property
    def introduced(self) -> bool:
        """This node adds error in this stage by itself (isolated run diverges)."""
        return self.isolated is not None and not self.isolated.ok

    @property
    def diverges(self) -> bool:
        return (self.propagated is not None and not self.propagated.ok) or bool(
            self.static
        )

    @property
    def inherited(self) -> bool:
        return self.diverges and not self.introduced


@dataclass
class NodeRow:
    """One FX node: what it is, where it came from, and what each stage made of it."""

    index: int  # position in the FX graph
    name: str  # FX node name
    op: str  # placeholder | get_attr | call_function | call_method | call_module | output
    target: str  # readable torch target, e.g. torch.nn.functional.relu, Conv2d
    module: str | None = None  # nn.Module path
    source: str | None = None  # file:line of the model code
    code: str | None = None  # that line's text
    shape: tuple[int, ...] | None = None  # eager value's shape (None: not a tensor)
    dtype: str | None = None
    inputs: tuple[str, ...] = ()  # FX nodes it reads
    stages: dict[str, StageResult] = field(default_factory=dict)

    @property
    def is_tensor(self) -> bool:
        return self.shape is not None

    def worst(self) -> Metrics | None:
        """The stage metrics with the largest propagated error (for colouring)."""
        found = [s.propagated for s in self.stages.values() if s.propagated]
        return max(found, key=Metrics.score, default=None)


@dataclass
class Divergence:
    """The first divergence: the earliest node (graph order) whose error is introduced."""

    node: str
    stage: Stage  # ir | opt | native
    source: str | None  # file:line of the node in the model
    code: str | None
    reason: str  # one sentence: what differs, e.g. "max abs 0.51 > tol (rtol 1e-4 ...)"
    culprit: (
        str  # "frontend lowering of <target>", "pass fold-bn", "kernel cuvil_k3_relu"
    )
    pass_name: str | None = None  # the pass that introduced it (stage opt)
    metrics: Metrics | None = None
    output_affected: bool = True  # False: a later op hid it (damped)


@dataclass
class DiffReport:
    """Everything one diff found. Rendered by cuvil_debug.diff.render."""

    model: str  # what was diffed (file path or module spec)
    inputs: list[tuple[tuple[int, ...], str]]  # shapes and dtypes of the example inputs
    options: dict[str, Any]  # compile options used (opt_level, pipeline, ...)
    tolerances: dict[str, Tolerance]  # by dtype name (f32, f16, ...)
    rows: list[NodeRow]
    stages: tuple[Stage, ...] = STAGES  # the stages that ran
    first: Divergence | None = None
    outputs_ok: dict[str, bool] = field(
        default_factory=dict
    )  # stage -> model outputs ok
    passes: list[dict[str, Any]] = field(
        default_factory=list
    )  # pass table (name, actions)
    ir_before: str | None = None  # printed IR (for HTML)
    ir_after: str | None = None
    timings: dict[str, float] = field(default_factory=dict)  # seconds per phase
    # bytes: eager (reference values, = the activations), peak_live, arena
    memory: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)  # injected faults, when any
    # the folder the diff ran in: what `model` and the IR's relative source paths are
    # relative to (the TUI finds the model's source from there); None in older reports
    cwd: str | None = None
    # the rule that decided every value's ok (judge.Judge.describe(); kind "normwise":
    # the tolerances alone, as in reports older than the float64 judge)
    judge: dict[str, Any] = field(default_factory=lambda: {"kind": "normwise"})
    # the batch the rows are measured on: "example inputs", "FILE.pt", "trial 3 ..."
    input_source: str | None = None
    # --trials: one entry per batch diffed (index, source, diverged, first, worst)
    trials: list[dict[str, Any]] = field(default_factory=list)
    saved_inputs: str | None = None  # where the diverging batch was saved (for reduce)

    @property
    def diverged(self) -> bool:
        return self.first is not None or any(
            s.diverges for r in self.rows for s in r.stages.values()
        )

    def row(self, name: str) -> NodeRow:
        for r in self.rows:
            if r.name == name:
                return r
        raise KeyError(name)

    def accounted(self) -> dict[str, int]:
        """How many FX nodes each stage accounts for, by status (the mapping summary)."""
        counts: dict[str, int] = {}
        for r in self.rows:
            for stage, s in r.stages.items():
                key = f"{stage}:{s.status}"
                counts[key] = counts.get(key, 0) + 1
        return counts

    def to_json(self) -> dict[str, Any]:
        """The versioned JSON document (``--format json``)."""
        doc = asdict(self)
        doc = _finite(doc)
        doc["schema"] = "cuvil-diff"
        doc["schema_version"] = SCHEMA_VERSION
        doc["diverged"] = self.diverged
        return doc


def _finite(x: Any) -> Any:
    """JSON has no inf/nan: write them as the strings "inf", "-inf", "nan"."""
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_finite(v) for v in x]
    return x
