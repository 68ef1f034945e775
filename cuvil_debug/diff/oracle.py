"""The one oracle of the diff tools: a stage's (or a compiled model's) values against
PyTorch eager, and against the float64 truth.

As in Polygraphy (one ``Comparator``, one ``AccuracyResult``), there is one comparator,
`Oracle`, holding the rule, and one result type, `Comparison`. The diff's stages
(``outputs_ok`` and every node's metrics), every ``bisect`` check and every ``reduce``
candidate are judged by it with the same per-value criterion (`metrics.compare`): with a
`judge.Judge` and a value's float64 `judge.Truth`, "no further from the truth than eager,
times the factor" (judge.py); without (no judge, or a dtype without a float64 twin), the
tolerance rule: normwise against the tensor's scale, NaN equal to NaN, integers exact. A
`Comparison` keeps every output's `Metrics`; what a tool prints is read from it
(`Comparison.what`, `Comparison.problem`), never judged again.

    oracle = Oracle(judge=Judge())                 # float64 truth where there is one
    truths = float64_outputs(model, inputs, want)  # truth.py: the float64 twin's outputs
    result = oracle.compare(got, want, truths=truths)
    result.ok, result.problem
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.utils._pytree import tree_leaves

from . import metrics
from .judge import Judge, Truth
from .metrics import DEFAULT_TOLERANCES, RefStats, dtype_name
from .model import Metrics, Tolerance

__all__ = [
    "Oracle",
    "Comparison",
    "OutputDiff",
    "compare_outputs",
    "tensors",
    "one_line",
    "error_words",
]


@dataclass(frozen=True, eq=False)
class Oracle:
    """Judges values against eager: `judge` (the float64 rule, for values given their
    truth), else `tolerances` by dtype name (``f32``...), `default` for the dtypes the
    table does not name, ``normwise`` as in `metrics.compare`."""

    tolerances: Mapping[str, Tolerance] = field(
        default_factory=lambda: dict(DEFAULT_TOLERANCES)
    )
    normwise: bool = True
    default: Tolerance = Tolerance(0.0, 0.0)
    judge: Judge | None = None

    @classmethod
    def within(cls, rtol: float, atol: float, judge: Judge | None = None) -> Oracle:
        """One tolerance for every dtype (``bisect``'s and ``reduce``'s rtol/atol)."""
        return cls({}, normwise=True, default=Tolerance(rtol, atol), judge=judge)

    def tolerance(self, dtype: torch.dtype) -> Tolerance:
        return self.tolerances.get(dtype_name(dtype), self.default)

    def measure(
        self,
        actual: torch.Tensor,
        expected: torch.Tensor,
        stats: RefStats | None = None,
        truth: Truth | None = None,
    ) -> Metrics:
        """One value (an FX node's, an output) against its eager value (and its
        float64 `truth`, judged by `judge` when both are given)."""
        tol = self.tolerance(expected.dtype)
        return metrics.compare(
            actual, expected, tol, self.normwise, stats, truth, self.judge
        )

    def compare(
        self,
        got: Sequence[torch.Tensor],
        want: Sequence[torch.Tensor],
        names: Sequence[str] | None = None,
        truths: Sequence[Truth | None] | None = None,
    ) -> Comparison:
        """A model's outputs against eager's (`truths`: their float64 truths, one per
        output or None); `names` (one per output) name them."""
        if len(got) != len(want):
            return Comparison(count=len(got), expected=len(want))
        if names is not None and len(names) != len(want):
            names = None
        if truths is None or len(truths) != len(want):
            truths = [None] * len(want)
        outputs = tuple(
            OutputDiff(
                index=i,
                shape=tuple(g.shape),
                expected_shape=tuple(w.shape),
                metrics=self.measure(g.detach(), w.detach(), truth=t),
                name=names[i] if names else None,
            )
            for i, (g, w, t) in enumerate(zip(got, want, truths))
        )
        return Comparison(outputs, len(got), len(want))

    def run(
        self,
        run: Callable[[], Any],
        want: Sequence[torch.Tensor],
        truths: Sequence[Truth | None] | None = None,
    ) -> Comparison:
        """`run()`'s tensors against `want` (and `truths`); a run that raises
        diverges too."""
        try:
            got = tensors(run())
        except Exception as e:
            return Comparison.failed(one_line(e))
        return self.compare(got, want, truths=truths)


def compare_outputs(
    got: Sequence[torch.Tensor],
    want: Sequence[torch.Tensor],
    rtol: float,
    atol: float,
    names: Sequence[str] | None = None,
) -> Comparison:
    """``Oracle.within(rtol, atol).compare(got, want, names)`` (the tolerance rule)."""
    return Oracle.within(rtol, atol).compare(got, want, names)


@dataclass(frozen=True)
class OutputDiff:
    """One output against eager's."""

    index: int
    shape: tuple[int, ...]
    expected_shape: tuple[int, ...]
    metrics: Metrics
    name: str | None = None  # the FX node that computes it, when known

    @property
    def ok(self) -> bool:
        return self.metrics.ok

    def severity(self) -> tuple[bool, float]:
        """What makes one output worse than another: a shape mismatch, then what no
        error size measures (new NaN, an Inf, an integer mismatch), then max abs."""
        m = self.metrics
        if not m.shape_ok:
            return True, math.inf
        if m.nan or m.lost_nan or not _is_float(m) or math.isinf(m.max_abs):
            return False, math.inf
        if m.judge == "float64" and m.excess is not None:
            return False, m.excess
        return False, m.max_abs

    def problem(self) -> str:
        """What is wrong, e.g. ``max abs 0.51 at output 0 (relu_1)``."""
        m = self.metrics
        where = f"output {self.index}" + (f" ({self.name})" if self.name else "")
        if not m.shape_ok:
            return f"shape {self.shape} vs eager {self.expected_shape} at {where}"
        if m.nan:
            return f"{m.nan} NaN where eager has none at {where}"
        if m.lost_nan:
            return f"{m.lost_nan} numbers where eager and float64 have NaN at {where}"
        if not _is_float(m):
            return f"{m.mismatched} of {m.numel} elements differ at {where}"
        if math.isinf(m.max_abs):
            return f"a NaN or Inf where eager has another value at {where}"
        return f"{error_words(m, short=True)} at {where}"


def _is_float(m: Metrics) -> bool:
    return m.dtype.startswith(("f", "bf"))


@dataclass(frozen=True)
class Comparison:
    """The oracle's result: every output's metrics, or why there are none (another
    number of outputs than eager's; `failure`: the run raised, in one line)."""

    outputs: tuple[OutputDiff, ...] = ()
    count: int = 0  # outputs got
    expected: int = 0  # outputs eager has
    failure: str | None = None

    @staticmethod
    def failed(failure: str) -> Comparison:
        return Comparison(failure=failure)

    @property
    def ok(self) -> bool:
        return (
            self.failure is None
            and self.count == self.expected
            and all(o.ok for o in self.outputs)
        )

    @property
    def diverges(self) -> bool:
        return not self.ok

    @property
    def worst(self) -> OutputDiff | None:
        """The worst diverging output (the first of equally bad ones), or None."""
        worst = None
        for o in self.outputs:
            if not o.ok and (worst is None or o.severity() > worst.severity()):
                worst = o
        return worst

    @property
    def error(self) -> float:
        """The max abs error to report: the worst diverging output's, else the largest
        (inf: a failure, another number of outputs, a shape mismatch)."""
        if self.failure is not None or self.count != self.expected:
            return math.inf
        worst = self.worst
        if worst is not None:
            return worst.metrics.max_abs
        return max((o.metrics.max_abs for o in self.outputs), default=0.0)

    @property
    def judged(self) -> str | None:
        """The float64 judge's worst verdict in words (None: not judged so)."""
        outs = [o for o in self.outputs if o.metrics.judge == "float64"]
        if not outs or self.failure is not None or self.count != self.expected:
            return None
        worst = max(outs, key=lambda o: o.metrics.excess or 0.0)
        return error_words(worst.metrics)

    @property
    def what(self) -> str:
        """One line, e.g. ``output 0: 3 of 10 elements differ, max abs error 0.51``."""
        if self.failure is not None:
            return f"failed: {self.failure}"
        if self.count != self.expected:
            return f"{self.count} outputs, eager has {self.expected}"
        worst = self.worst
        if worst is None:
            return f"max abs error {self.error:.3g}"
        name = f"output {worst.index}" if self.expected > 1 else "output"
        if not worst.metrics.shape_ok:
            return f"{name} has shape {worst.shape}, eager {worst.expected_shape}"
        m = worst.metrics
        if m.judge == "float64":
            return f"{name}: {error_words(m)}"
        return (
            f"{name}: {m.mismatched} of {m.numel} elements differ, "
            f"max abs error {m.max_abs:.3g}"
        )

    @property
    def problem(self) -> str | None:
        """None when ok, else the worst difference and where it is, e.g. ``max abs
        0.51 at output 0 (relu_1)``."""
        if self.ok:
            return None
        if self.failure is not None:
            return f"failed: {self.failure}"
        if self.count != self.expected:
            return f"{self.count} outputs, eager has {self.expected}"
        return self.worst.problem()


def error_words(m: Metrics, short: bool = False) -> str:
    """A float value's judged error in words: ``max abs 0.51`` (tolerance rule) or
    ``RMSE vs float64 3.1e-05 > bound 2.4e-06 (eager 3e-07)`` (float64 judge)."""
    if m.judge != "float64" or m.truth is None or m.eager is None:
        return f"max abs {m.max_abs:.3g}" if short else f"max abs error {m.max_abs:.3g}"
    what = "RMSE" if m.measure == "rmse" else "max abs error"
    err, eager = getattr(m.truth, m.measure), getattr(m.eager, m.measure)
    sign = ">" if not m.ok else "<="
    return (
        f"{what} vs float64 {err:.3g} {sign} bound {m.bound:.3g} "
        f"(eager-float32 {eager:.3g}; max abs {m.max_abs:.3g} from eager)"
    )


def tensors(value: Any) -> list[torch.Tensor]:
    """The tensors of a (nested) value, in pytree order."""
    return [t for t in tree_leaves(value) if isinstance(t, torch.Tensor)]


def one_line(e: BaseException) -> str:
    """``TypeName: first line of the message``."""
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"
