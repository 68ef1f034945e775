"""The float64 judge: is a value further from the truth than PyTorch eager is?

A compiled value and eager's value of the same node are both float32 roundings of one
exact result; neither is "the" answer, and two valid summation orders differ element by
element. So the judge does not ask whether the compiled value is close to eager's, but
whether it is *worse*: the model also runs in float64 (a double copy of the module and
its inputs, `truth.py`), and a value fails when its error against that truth exceeds

    FACTOR x eager-float32's error against the same truth + FLOOR_ULPS ulp of the scale

(the rule of PyTorch's accuracy checker for torch.compile, ``same(ref, res, fp64_ref)``,
with a floor measured in ulps rather than an absolute tolerance). By default the error is
the RMSE over the tensor and the scale its RMS (normwise); elementwise, the max abs error
over the tensor against eager's max abs error, the scale max|truth|. The floor is what
an exactly representable value (eager's error 0: a ReLU, a copy, a max pool) may move by;
a quarter ulp is below one rounding, so a value off by one ulp everywhere still fails.

`Truth` is one value's truth, kept small: eager's error against it (``eager - truth`` in
bfloat16: the error needs its magnitude, not its last bits) and eager's error summary; a
stage's error is then ``(stage - eager) + (eager - truth)``. `Judge` holds the rule;
`measure` applies it to one value (`metrics.compare` with a truth). Dtypes without a
float64 twin (float64 itself, integers) fall back to the normwise tolerance rule.

Reusable on its own (a fuzzer, a test), through the diff tools' one comparator::

    oracle = Oracle(judge=Judge())                        # oracle.py
    m = oracle.measure(actual, eager, truth=Truth.of(eager, truth64))
    m.ok, m.truth.rmse, m.eager.rmse, m.bound             # the Metrics the diff shows
    oracle.compare(outputs, eager_outputs, truths=truth.float64_outputs(model, xs, eager_outputs))
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import torch

from .model import Metrics, TruthError

__all__ = [
    "JUDGES",
    "FACTORS",
    "MAX_FACTORS",
    "FLOOR_ULPS",
    "BITS",
    "Truth",
    "Judge",
    "twinned",
    "truth_error",
    "judged",
    "resolve",
    "ulp_spacing",
]

JUDGES = ("float64", "normwise")
# how many times eager-float32's error a value's may be (PyTorch's checker: 2 for float32,
# 3 for half types); larger here because Cuvil's kernels (one accumulator per output,
# no pairwise or blocked summation) are measured up to ~4.5x eager's RMSE on clean
# models (docs/DIFF.md, "The float64 judge")
FACTORS: dict[str, float] = {"f32": 8.0, "f16": 8.0, "bf16": 8.0}
# --elementwise: the largest error of a tensor is a noisier statistic than its RMS
# (measured up to 11x eager's on a clean model: a 784-long dot product at -O0)
MAX_FACTORS: dict[str, float] = {"f32": 16.0, "f16": 16.0, "bf16": 16.0}
FLOOR_ULPS = 0.25  # the floor, in ulps of the tensor's scale (RMS or max)
# significand bits (with the implicit one) of the dtypes that have a float64 twin
BITS = {"f32": 24, "f16": 11, "bf16": 8}
# (significand bits, the smallest subnormal's exponent) of every float type: one ulp of
# x is 2**(exponent(x) - bits + 1) for x in [2**exponent, 2**(exponent + 1))
UNITS = {"f64": (53, -1074), "f32": (24, -149), "f16": (11, -24), "bf16": (8, -133)}
# exponent bits of the float types the spacing is computed in
_EXPONENT = {
    torch.float32: (torch.int32, 0x7F800000),
    torch.float64: (torch.int64, 0x7FF0000000000000),
}
_NAMES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}


def twinned(eager: object, truth: object) -> bool:
    """Whether `truth` is a float64 twin of the eager tensor `eager`."""
    return (
        isinstance(eager, torch.Tensor)
        and isinstance(truth, torch.Tensor)
        and eager.dtype in _NAMES
        and truth.dtype == torch.float64
        and tuple(eager.shape) == tuple(truth.shape)
    )


def ulp_spacing(ref: torch.Tensor, dtype: str) -> torch.Tensor:
    """One ulp of each element of `ref` in `dtype` (f64, f32, f16, bf16), never below
    the dtype's smallest subnormal: the power of two below |x| (its exponent bits
    alone) times 2**(1 - bits). Computed in float64 for f64, float32 otherwise."""
    bits, tiny = UNITS[dtype]
    work = torch.float64 if dtype == "f64" else torch.float32
    ints, mask = _EXPONENT[work]
    power = (ref.to(work).view(ints) & mask).view(work)
    return (power * 2.0 ** (1 - bits)).clamp_min(2.0**tiny)


def truth_error(
    diff: torch.Tensor, ref: torch.Tensor, dtype: str, spacing=None
) -> TruthError:
    """RMSE, max abs and max ulp (of `ref`'s elements, in `dtype`; `spacing`: those
    ulps, when known) of `diff` (float32; elements that are not finite are left out:
    the comparison with eager counts them)."""
    if diff.numel() == 0:
        return TruthError(0.0, 0.0, 0.0)
    mag = diff.abs()
    max_abs = float(mag.max())
    if not math.isfinite(max_abs):
        diff = torch.nan_to_num(diff, nan=0.0, posinf=0.0, neginf=0.0)
        mag = diff.abs()
        max_abs = float(mag.max())
    norm = float(torch.linalg.vector_norm(diff, dtype=torch.float64))
    ulps = 0.0
    if max_abs > 0:
        ulps = float(
            (mag / (ulp_spacing(ref, dtype) if spacing is None else spacing)).max()
        )
    return TruthError(norm / math.sqrt(diff.numel()), max_abs, ulps)


@dataclass
class Truth:
    """The float64 truth of one value, as eager's error against it."""

    error: torch.Tensor  # eager - truth (bfloat16; 0 where either is not finite)
    eager: TruthError  # eager-float32's error against the truth
    rms: float  # RMS of the value (finite elements)
    amax: float  # max |value| (finite elements)
    dtype: str  # f32 | f16 | bf16: the value's dtype
    nan: torch.Tensor | None = None  # where eager and the truth are both NaN (if any)

    @staticmethod
    def of(eager: torch.Tensor, truth: torch.Tensor, stats=None) -> Truth | None:
        """`eager`'s truth `truth` (float64, same shape), or None when it is none.
        The scale (RMS, max) is eager's, the same as the truth's to float32's
        precision (`stats`: metrics.RefStats of `eager`, when known)."""
        if not twinned(eager, truth):
            return None
        if stats is None:
            from .metrics import RefStats

            stats = RefStats.of(eager)
        eager = eager.detach()
        diff = torch.sub(eager, truth).to(torch.float32)  # in float64, then rounded
        nan = None
        if diff.numel() and not math.isfinite(float(diff.abs().max())):
            diff = torch.nan_to_num(diff, nan=0.0, posinf=0.0, neginf=0.0)
            nan = eager.isnan() & truth.isnan()
            nan = nan if bool(nan.any()) else None
        dtype = _NAMES[eager.dtype]
        err = truth_error(diff, eager, dtype, stats.spacing(eager, dtype))
        return Truth(diff.to(torch.bfloat16), err, stats.rms, stats.scale, dtype, nan)

    def lost_nan(self, actual: torch.Tensor) -> int:
        """How many of the NaN eager and the truth agree on `actual` does not have."""
        if self.nan is None or actual.shape != self.nan.shape:
            return 0
        return int((self.nan & ~actual.isnan()).sum())

    def error_of(
        self, actual: torch.Tensor, eager: torch.Tensor, spacing=None
    ) -> TruthError:
        """`actual`'s error against the truth: (actual - eager) + (eager - truth).
        (actual - eager) is exact in float32 for close values (Sterbenz)."""
        diff = actual.to(torch.float32) - eager.to(torch.float32)
        diff += self.error
        return truth_error(diff, eager, self.dtype, spacing)


@dataclass(frozen=True)
class Judge:
    """The float64 rule: `factors` by dtype (None: FACTORS, or MAX_FACTORS when
    `elementwise`), the floor in ulps, normwise (RMSE) or `elementwise` (max abs)."""

    factors: Mapping[str, float] | None = None
    floor_ulps: float = FLOOR_ULPS
    elementwise: bool = False

    def __post_init__(self) -> None:
        if self.factors is None:
            table = MAX_FACTORS if self.elementwise else FACTORS
            object.__setattr__(self, "factors", dict(table))

    @staticmethod
    def with_factor(factor: float | None, elementwise: bool = False) -> Judge:
        """The rule with one `factor` for every dtype (None: the defaults)."""
        if factor is None:
            return Judge(elementwise=elementwise)
        return Judge(dict.fromkeys(FACTORS, factor), elementwise=elementwise)

    @property
    def measure(self) -> str:
        """The TruthError field judged: ``rmse`` or ``max_abs``."""
        return "max_abs" if self.elementwise else "rmse"

    def factor(self, dtype: str) -> float:
        return self.factors.get(dtype, 8.0)

    def bound(self, truth: Truth) -> float:
        """What a value's error against `truth` must stay under."""
        eps = 2.0 ** (1 - BITS[truth.dtype])
        scale = truth.amax if self.elementwise else truth.rms
        eager = getattr(truth.eager, self.measure)
        return self.factor(truth.dtype) * eager + self.floor_ulps * eps * scale

    def passes(self, error: TruthError, truth: Truth) -> bool:
        return getattr(error, self.measure) <= self.bound(truth)

    def describe(self) -> dict:
        """The rule as the report records it (``DiffReport.judge``)."""
        return {
            "kind": "float64",
            "measure": self.measure,
            "factors": dict(self.factors),
            "floor_ulps": self.floor_ulps,
        }


def resolve(judge: Judge | str | None, elementwise: bool = False) -> Judge | None:
    """A judge from its name: "float64" (the default rule), "normwise" or None (the
    tolerances alone), or a Judge as is."""
    if judge is None or judge == "normwise":
        return None
    if judge == "float64":
        return Judge(elementwise=elementwise)
    if isinstance(judge, Judge):
        return judge
    raise ValueError(f"judge must be one of {', '.join(JUDGES)} or a Judge: {judge!r}")


def judged(
    m: Metrics, actual, eager, truth: Truth, judge: Judge, stats=None
) -> Metrics:
    """`m` (the comparison with eager) decided by the float64 `judge` instead
    (`stats`: metrics.RefStats of `eager`, its ulps cached)."""
    same = m.max_abs == 0.0 and m.nan == 0 and m.inf == 0 and m.shape_ok
    spacing = stats.spacing(eager, truth.dtype) if stats is not None else None
    error = truth.eager if same else truth.error_of(actual, eager, spacing)
    m.judge, m.truth, m.eager = "float64", error, truth.eager
    m.bound, m.measure = judge.bound(truth), judge.measure
    m.lost_nan = truth.lost_nan(actual) if m.shape_ok else 0
    m.ok = (
        m.shape_ok and m.nan == m.inf == m.lost_nan == 0 and judge.passes(error, truth)
    )
    return m
