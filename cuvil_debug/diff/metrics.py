"""Comparing one stage's tensor with the eager tensor of the same FX node.

Floats: max abs / max rel error, ULP distance, cosine similarity, SQNR, NaN/Inf that the
reference does not have; a value passes when ``|a - b| <= atol + rtol * |b|`` everywhere
(NaN equal to NaN) and it brings no new NaN or Inf. Integers and bools must match exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .judge import Judge, Truth, judged, ulp_spacing
from .model import Metrics, Tolerance

__all__ = [
    "DEFAULT_TOLERANCES",
    "RefStats",
    "compare",
    "tolerance_for",
    "parse_tolerances",
]

# float32 is the project's documented tolerance (rtol 1e-4, atol 1e-5); the others scale
# with the dtype's precision the way torch.testing does
DEFAULT_TOLERANCES = {
    "f64": Tolerance(1e-7, 1e-7),
    "f32": Tolerance(1e-4, 1e-5),
    "f16": Tolerance(1e-3, 1e-3),
    "bf16": Tolerance(1.6e-2, 1e-3),
}

_DTYPE_NAMES = {
    torch.float64: "f64",
    torch.float32: "f32",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.int64: "i64",
    torch.int32: "i32",
    torch.int16: "i16",
    torch.int8: "i8",
    torch.uint8: "u8",
    torch.bool: "i1",
}


def dtype_name(dtype: torch.dtype) -> str:
    return _DTYPE_NAMES.get(dtype, str(dtype).replace("torch.", ""))


def tolerance_for(dtype: torch.dtype, table: dict[str, Tolerance]) -> Tolerance:
    return table.get(dtype_name(dtype), Tolerance(0.0, 0.0))


def parse_tolerances(
    rtol: float | None = None, atol: float | None = None, specs: list[str] = ()
) -> dict[str, Tolerance]:
    """The default table with overrides: ``rtol``/``atol`` for every float dtype, then
    ``specs`` like ``"f16=1e-2,1e-3"`` (rtol, atol) for one dtype."""
    table = dict(DEFAULT_TOLERANCES)
    if rtol is not None or atol is not None:
        table = {
            k: Tolerance(
                rtol if rtol is not None else t.rtol,
                atol if atol is not None else t.atol,
            )
            for k, t in table.items()
        }
    for spec in specs:
        name, _, values = spec.partition("=")
        parts = values.split(",")
        if name not in table or len(parts) != 2:
            raise ValueError(
                f"tolerance {spec!r} must look like f32=RTOL,ATOL "
                f"(dtypes: {', '.join(table)})"
            )
        try:
            rt, at = float(parts[0]), float(parts[1])
        except ValueError:
            rt = at = math.nan
        if not (rt >= 0 and at >= 0 and math.isfinite(rt) and math.isfinite(at)):
            raise ValueError(f"tolerance {spec!r}: RTOL and ATOL must be numbers >= 0")
        table[name] = Tolerance(rt, at)
    return table


def compare(
    actual: torch.Tensor,
    expected: torch.Tensor,
    tol: Tolerance,
    normwise: bool = True,
    stats: RefStats | None = None,
    truth: Truth | None = None,
    judge: Judge | None = None,
) -> Metrics:
    """Metrics of `actual` (a stage's value) against `expected` (eager).

    With a `judge` and the value's float64 `truth`, the float64 rule decides ``ok``
    (judge.py: no further from the truth than eager, times the factor); without, or
    for a dtype without a float64 twin, the tolerance rule below.

    ``normwise`` (the default): a float value passes when ``max|a - b| <= atol + rtol *
    max|b|`` — the error measured against the tensor's scale, so an element that is the
    difference of large terms (a conv output near zero) is not held to a tolerance no
    summation order could meet. ``normwise=False`` is torch.allclose, element by element.
    Elements outside the elementwise tolerance are counted either way (``mismatched``).
    """
    dtype = dtype_name(expected.dtype)
    if judge is None:
        truth = None
    if tuple(actual.shape) != tuple(expected.shape):
        return Metrics(
            numel=expected.numel(),
            dtype=dtype,
            ok=False,
            shape_ok=False,
            max_abs=math.inf,
            max_rel=math.inf,
            max_ulp=math.inf,
            mismatched=expected.numel(),
            judge="normwise" if truth is None else "float64",
        )
    if not expected.dtype.is_floating_point:
        return _compare_exact(actual, expected, dtype)
    stats = stats or RefStats.of(expected)
    m = _compare_float(actual, expected, tol, dtype, normwise, stats)
    if truth is not None:
        return judged(m, actual, expected, truth, judge, stats)
    return m


def _compare_exact(a: torch.Tensor, b: torch.Tensor, dtype: str) -> Metrics:
    a64, b64 = a.to(torch.int64), b.to(torch.int64)
    differ = a64 != b64
    mismatched = int(differ.sum())
    max_abs = float((a64 - b64).abs().max()) if mismatched else 0.0
    worst = _index(differ.flatten().nonzero(), b.shape) if mismatched else None
    return Metrics(
        numel=b.numel(),
        dtype=dtype,
        ok=mismatched == 0,
        max_abs=max_abs,
        max_rel=max_abs,
        mismatched=mismatched,
        worst_index=worst,
    )


@dataclass
class RefStats:
    """What every comparison against one reference tensor needs (computed once)."""

    scale: float  # max |b| over finite elements
    finite: bool  # no NaN/Inf in b
    energy: float  # sum b*b (finite elements)
    numel: int = 0
    ulps: torch.Tensor | None = None  # one ulp of each element (`spacing`, cached)

    @staticmethod
    def of(b: torch.Tensor) -> RefStats:
        b = b.to(torch.float64 if b.dtype == torch.float64 else torch.float32)
        flat = b.reshape(-1)
        scale = float(flat.abs().max()) if flat.numel() else 0.0
        finite = math.isfinite(scale)
        if not finite:
            flat = torch.where(torch.isfinite(flat), flat, torch.zeros_like(flat))
            scale = float(flat.abs().max())
        energy = float(torch.dot(flat, flat)) if flat.numel() else 0.0
        return RefStats(scale, finite, energy, flat.numel())

    @property
    def rms(self) -> float:
        return math.sqrt(self.energy / self.numel) if self.numel else 0.0

    def spacing(self, b: torch.Tensor, dtype: str) -> torch.Tensor:
        """One ulp of each element of the reference `b` in `dtype` (kept: every stage
        and mode measures its ulps against the same reference)."""
        if self.ulps is None:
            self.ulps = ulp_spacing(b, dtype)
        return self.ulps


@dataclass
class _Errors:
    """|a - b| and what it needs to be read: NaN/Inf (where the reference has none)
    counted, every other non-finite element zeroed in `a`, `b` and `diff`, and
    `special` marking the elements where a and b disagree on NaN/Inf."""

    a: torch.Tensor
    b: torch.Tensor
    diff: torch.Tensor
    max_abs: float
    nan: int = 0
    inf: int = 0
    special: torch.Tensor | None = None  # None: every element is finite

    @staticmethod
    def of(a: torch.Tensor, b: torch.Tensor, stats: RefStats) -> _Errors:
        diff = (a - b).abs()
        max_abs = float(diff.max())
        if stats.finite and math.isfinite(max_abs):
            return _Errors(a, b, diff, max_abs)
        # NaN/Inf somewhere: the careful path
        fa, fb = torch.isfinite(a), torch.isfinite(b)
        nan_a, nan_b = a.isnan(), b.isnan()
        new_nan = int((nan_a & ~nan_b).sum())
        new_inf = int((a.isinf() & ~b.isinf()).sum())
        finite = fa & fb
        agree = (nan_a & nan_b) | (a.isinf() & (a == b))  # same NaN/Inf: agreement
        special = ~(finite | agree)
        a = torch.where(finite, a, torch.zeros_like(a))
        b = torch.where(finite, b, torch.zeros_like(b))
        diff = (a - b).abs()
        max_abs = math.inf if bool(special.any()) else float(diff.max())
        return _Errors(a, b, diff, max_abs, new_nan, new_inf, special)

    def worst(self) -> tuple[int, ...] | None:
        """Where max abs is reached (the first disagreeing NaN/Inf, if any)."""
        if self.special is not None and bool(self.special.any()):
            return _index(self.special.flatten().nonzero()[0], self.b.shape)
        return _index(self.diff.flatten().argmax().reshape(1), self.b.shape)


def _compare_float(
    a: torch.Tensor,
    b: torch.Tensor,
    tol: Tolerance,
    dtype: str,
    normwise: bool,
    stats: RefStats | None = None,
):
    """Few passes over the data: the error tensor once, reductions on it; the extras
    (ULP, relative error, cosine, SQNR) only when the values differ at all."""
    work = torch.float64 if b.dtype == torch.float64 else torch.float32
    a, b = a.to(work).contiguous(), b.to(work).contiguous()  # a layout's copy: once
    stats = stats or RefStats.of(b)
    if not b.numel():
        return Metrics(numel=0, dtype=dtype, ok=True)
    bound = tol.atol + tol.rtol * stats.scale if normwise else None
    e = _Errors.of(a, b, stats)
    if e.max_abs == 0.0 and e.special is None:
        return Metrics(
            numel=b.numel(),
            dtype=dtype,
            ok=True,
            cosine=1.0 if stats.energy > 0 else None,
            sqnr_db=math.inf,
            bound=bound,
        )
    babs = e.b.abs()
    outside = e.diff > tol.atol + tol.rtol * babs
    if e.special is not None:
        outside |= e.special
    mismatched = int(outside.sum())
    if normwise:
        within = e.max_abs <= bound
    else:
        within = mismatched == 0
    rel = e.diff / babs.clamp_min(max(tol.atol, 1e-30))
    cosine, sqnr_db = _similarity(e, stats)
    return Metrics(
        numel=b.numel(),
        dtype=dtype,
        ok=within and e.nan == 0 and e.inf == 0,
        max_abs=e.max_abs,
        max_rel=float(rel.max()),
        max_ulp=float((e.diff / stats.spacing(e.b, dtype)).max()),
        cosine=cosine,
        sqnr_db=sqnr_db,
        mismatched=mismatched,
        nan=e.nan,
        inf=e.inf,
        worst_index=e.worst(),
        bound=bound,
    )


def _similarity(e: _Errors, stats: RefStats) -> tuple[float | None, float]:
    """(cosine, SQNR in dB) of the finite parts of a and b."""
    flat_a, flat_b, flat_d = e.a.flatten(), e.b.flatten(), e.diff.flatten()
    noise = float(torch.dot(flat_d, flat_d))
    energy_a = float(torch.dot(flat_a, flat_a))
    cross = float(torch.dot(flat_a, flat_b))
    cosine = (
        cross / math.sqrt(energy_a * stats.energy)
        if energy_a > 0 and stats.energy > 0
        else None
    )
    return cosine, _sqnr(stats.energy, noise)


def _index(flat: torch.Tensor, shape) -> tuple[int, ...] | None:
    if flat.numel() == 0:
        return None
    i = int(flat.flatten()[0])
    out = []
    for d in reversed(tuple(shape)):
        out.append(i % d if d else 0)
        i //= max(d, 1)
    return tuple(reversed(out))


def _sqnr(signal: float, noise: float) -> float:
    if noise == 0:
        return math.inf
    if signal == 0:
        return -math.inf
    return 10 * math.log10(signal / noise)
