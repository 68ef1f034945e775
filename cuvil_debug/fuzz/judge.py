"""Is a compiled graph's answer wrong? Judged against eager *and* against a float64
reference, so that ill-conditioned inputs do not raise false alarms.

For one graph the runner computes: ``eager`` (PyTorch, the model as written), ``ref``
(the same graph with every float promoted to float64: inputs, parameters, casts and
dtype arguments), and ``perturbed`` (eager again on float32/float64 inputs and
parameters multiplied by ``1 + u * 2**-20``, ``u`` uniform in [-1, 1], twice, and by
``1 +- 2**-20``), and the reference on those perturbed inputs too, with every value
a node computes wiggled the same way (a float32 program rounds each one; how much that
moves an output is the graph's conditioning there, which a wiggle of the inputs alone
misses where a subtraction rounds to a coarse grid: fuzz 7001128). For each output
and element:

* **the class** (finite, +inf, -inf, nan) of Cuvil's value must be the class of eager's,
  of the reference rounded to the output's dtype, or of a perturbed run's; or an
  infinity of the reference's sign where the reference is within 16x of the largest
  finite value (a sum in another order overflows there: reassociation, not a bug);
  or any non-finite class where eager has lost the value: eager's is non-finite and
  the reference's of another class (an overflow inside the float32 program, or an
  infinity whose sign a rounding residual chose), or eager's is finite and off by more
  than 10% of a finite reference; eager's answer there is as arbitrary as Cuvil's;
* **a float value** is wrong when
  ``|c - r| > ATOL + RTOL * |r| + K_EAGER * |e - r| + K_SPREAD * spread``, with
  ``spread = max_k max(|p_k - e|, |q_k - r|)`` (``c`` Cuvil, ``e`` eager, ``r`` the
  reference, ``p_k`` and ``q_k`` the perturbed eager and reference runs; the reference's
  spread shows an ill-conditioned graph that a 16-bit cast quantizes away in eager's):
  Cuvil may be off by several times eager's own error, and by the change a few-ulp
  wiggle of the inputs causes (cancellation, a floor or a comparison on the edge), plus
  the usual float32 tolerance (``RTOL`` 1e-4, ``ATOL`` 1e-5; float16 and bfloat16 outputs use
  torch.testing's relative tolerances for them, 1e-3 and 1.6e-2: a 16-bit op that Cuvil
  computes in several steps may round once more than eager);
* **a second truth for 16-bit programs**: an output that fails against the reference
  passes if it passes the same rule against the reference rounded at every node eager
  computes in float16/bfloat16 (the exact 16-bit program: fuzz 7051698, where eager's
  own bfloat16 kernel was 8 ulps off and Cuvil exact);
* **an exact zero for a residual**: the class may also be the one of the reference
  with every node's values below ``DELTA`` times the node's largest magnitude set to 0
  (``snap``): torch's layer_norm of a row whose mean is exactly 0 leaves a residual
  (2.8e-9, 1.9e-17 in float64) where Cuvil's two-pass mean leaves 0, and a pole after
  it (``fmod(x, 0)``, lgamma) reads which (fuzz 7403987, 7108773); that reference
  also runs layer_norm and group_norm by their definition (``exact.py``: a constant
  row, a one-element group are residuals of either sign in torch, 7408438, 7401782);
* **an integer or bool value** (argmax, comparisons, casts) must equal eager's unless
  eager's own value is unstable there: it differs in the reference or a perturbed run.

Shapes and dtypes must be eager's exactly. The rule is deliberately small and lives
here so that ``cuvil-debug diff``'s float64 judge can replace it later.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

__all__ = [
    "Verdict",
    "judge",
    "perturb",
    "snap",
    "ATOL",
    "RTOL",
    "K_EAGER",
    "K_SPREAD",
    "DELTA",
]

ATOL, RTOL = 1e-5, 1e-4
#: 16-bit float outputs: torch.testing's default relative tolerances for them
RTOL_16 = {torch.float16: 1e-3, torch.bfloat16: 1.6e-2}
K_EAGER, K_SPREAD = 8.0, 4.0
DELTA = 2.0**-20


@dataclass
class Verdict:
    ok: bool
    why: str = ""
    output: int = -1
    max_ratio: float = 0.0  # the worst |c - r| / tolerance seen (>1 means wrong)


def perturb(t: Any, gen: torch.Generator, how: str) -> Any:
    """`t` times 1 + u * DELTA (``how``: "random", "up", "down") if it is float32/64."""
    if not isinstance(t, torch.Tensor) or t.dtype not in (torch.float32, torch.float64):
        return t
    if how == "up":
        u = torch.ones(t.shape, dtype=torch.float64)
    elif how == "down":
        u = -torch.ones(t.shape, dtype=torch.float64)
    else:
        u = torch.rand(t.shape, generator=gen, dtype=torch.float64) * 2 - 1
    return (t.double() * (1 + u * DELTA)).to(t.dtype)


def snap(t: Any) -> Any:
    """`t` with the values below ``DELTA`` times its largest finite magnitude set to
    0: the judge's snapped reference, where a rounding residual of an exact zero
    (torch's layer_norm of a row whose mean is exactly 0 leaves 2.8e-9, and 1.9e-17 in
    float64) is the zero it stands for."""
    if not isinstance(t, torch.Tensor) or not t.is_floating_point() or not t.numel():
        return t
    finite = t.abs()[t.isfinite()]
    if not finite.numel():
        return t
    tiny = t.abs() <= finite.max() * DELTA
    return torch.where(tiny & t.isfinite(), torch.zeros_like(t), t)


def _cls(t: torch.Tensor) -> torch.Tensor:
    """0 finite, 1 +inf, 2 -inf, 3 nan."""
    c = torch.zeros(t.shape, dtype=torch.int8)
    c[t == torch.inf] = 1
    c[t == -torch.inf] = 2
    c[t.isnan()] = 3
    return c


def _float_check(c, e, r, ps, qs=(), cs=()) -> tuple[str, float]:
    c64, e64 = c.double(), e.double()
    r64 = r.double() if r is not None else e64
    rounded = r64.to(c.dtype).double()
    cc = _cls(c64)
    allowed = (cc == _cls(e64)) | (cc == _cls(rounded))
    # at the edge of the range a sum in another order may overflow where eager's does not
    edge = torch.finfo(c.dtype).max / 16
    allowed |= ((cc == 1) & (r64 > edge)) | ((cc == 2) & (r64 < -edge))
    # where eager has lost the value, a non-finite one is no worse: eager non-finite
    # and the reference of another class (a layer_norm of rows holding 3.4e38 overflows
    # inside the float32 program, eager 0 or -inf, fuzz 7308165; a one-element
    # group_norm's exact 0 is a rounding residual of either sign in eager and in the
    # reference, so 0 * -inf gave +inf and -inf where the exact answer is NaN, 7401782),
    # or eager finite with no correct digit against a finite reference
    e_cls = _cls(e64)
    lost = (e_cls != 0) & (e_cls != _cls(rounded))
    lost |= torch.isfinite(r64) & ((e64 - r64).abs() > 0.1 * r64.abs() + ATOL)
    allowed |= (cc != 0) & lost
    for p in list(ps) + list(cs):
        allowed |= cc == _cls(p.double())
    if not bool(allowed.all()):
        i = int((~allowed).reshape(-1).nonzero()[0])
        return _at("non-finite pattern differs", i, c64, e64, r64), float("inf")
    finite = (cc == 0) & (_cls(e64) == 0) & torch.isfinite(r64)
    spread = torch.zeros_like(e64)
    for p, base in [(p, e64) for p in ps] + [(q, r64) for q in qs]:
        d = (p.double() - base).abs()
        spread = torch.maximum(spread, torch.where(d.isfinite(), d, 0))
    err = (c64 - r64).abs()
    rtol = RTOL_16.get(c.dtype, RTOL)
    tol = ATOL + rtol * r64.abs() + K_EAGER * (e64 - r64).abs() + K_SPREAD * spread
    ratio = torch.where(finite, err / tol, 0)
    worst = float(ratio.max()) if ratio.numel() else 0.0
    if worst > 1:
        i = int(ratio.reshape(-1).argmax())
        return _at(f"error {worst:.3g}x the tolerance", i, c64, e64, r64), worst
    return "", worst


def _at(what: str, i: int, c, e, r) -> str:
    flat = lambda t: t.reshape(-1)[i].item()  # noqa: E731
    return f"{what} at flat index {i}: cuvil {flat(c)!r}, eager {flat(e)!r}, float64 {flat(r)!r}"


def _exact_check(c, e, r, ps) -> str:
    bad = c != e
    if not bool(bad.any()):
        return ""
    unstable = torch.zeros_like(bad)
    for other in ([r] if r is not None else []) + list(ps):
        if other is not None and other.shape == e.shape:
            unstable |= other.to(e.dtype) != e
    real = bad & ~unstable
    if bool(real.any()):
        i = int(real.reshape(-1).nonzero()[0])
        return _at(
            "value differs where eager is stable", i, c, e, e if r is None else r
        )
    return ""


def _one(
    c: Any, e: torch.Tensor, r: Any, ps: list[Any], qs: list[Any], cs=()
) -> tuple[str, float]:
    if not isinstance(c, torch.Tensor):
        return f"a {type(c).__name__}, not a tensor", float("inf")
    if c.shape != e.shape or c.dtype != e.dtype:
        return (
            f"{c.dtype}{list(c.shape)} where eager gives {e.dtype}{list(e.shape)}",
            float("inf"),
        )
    r = r if isinstance(r, torch.Tensor) and r.shape == e.shape else None
    ps = [p for p in ps if isinstance(p, torch.Tensor) and p.shape == e.shape]
    qs = [q for q in qs if isinstance(q, torch.Tensor) and q.shape == e.shape]
    cs = [q for q in cs if isinstance(q, torch.Tensor) and q.shape == e.shape]
    if e.is_floating_point():
        return _float_check(c, e, r, ps, qs if r is not None else [], cs)
    return _exact_check(c, e, r, ps + qs), 0.0


def judge(
    outs: list[Any],
    eager: list[Any],
    ref: list[Any] | None,
    perturbed: list[list[Any]],
    perturbed_ref: list[list[Any]] = (),
    ref16: list[Any] | None = None,
    snapped: list[Any] | None = None,
) -> Verdict:
    """The verdict on Cuvil's outputs `outs` (see the module docstring). `ref16`, the
    reference rounded at every node eager computes in 16 bits, is a second truth: an
    output wrong against `ref` is right when it passes against `ref16`. `snapped`,
    the reference with rounding residuals snapped to 0 at every node (``snap``), is
    one more class a value may have."""
    if len(outs) != len(eager):
        return Verdict(False, f"{len(outs)} outputs where eager gives {len(eager)}")
    worst = 0.0
    for i, (c, e) in enumerate(zip(outs, eager, strict=True)):
        r = ref[i] if ref is not None else None
        ps = [p[i] for p in perturbed if len(p) > i]
        qs = [q[i] for q in perturbed_ref if len(q) > i]
        cs = [snapped[i]] if snapped is not None and len(snapped) > i else []
        why, ratio = _one(c, e, r, ps, qs, cs)
        if why and ref16 is not None and len(ref16) > i:
            why16, ratio16 = _one(c, e, ref16[i], ps, [])
            why, ratio = (why16, ratio16) if not why16 else (why, ratio)
        if why:
            return Verdict(False, f"output {i}: {why}", i, ratio)
        worst = max(worst, ratio)
    return Verdict(True, max_ratio=worst)
