"""Calibration: the range of each value static int8 quantizes, observed on sample inputs.

``calibrate(module, batches, values)`` runs the main function in the reference
interpreter on every batch and records each watched value's range: its min and max
("minmax", ONNX Runtime's and torch's MinMaxObserver), or the ``percentile``-th
percentile of the low and high tails of a sample of its elements ("percentile", which
lets a few outliers saturate instead of stretching the scale). ``qparams(range,
activations)`` turns a range into (scale, zero point, quant range) of a uint8 tensor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import torch

from ..errors import CuvilError
from ..ir.core import Module, Value
from ..ir.interpreter import Interpreter
from ..ir.ops.quant import f32

__all__ = ["ValueRange", "calibrate", "qparams", "weight_qparams"]

_SAMPLES = 1 << 16  # elements kept per value and batch for the percentile method


@dataclass
class ValueRange:
    lo: float = float("inf")
    hi: float = float("-inf")
    samples: list[torch.Tensor] = field(default_factory=list)

    def observe(self, t: torch.Tensor, keep_samples: bool) -> None:
        t = t.detach().float().reshape(-1)
        if t.numel() == 0:
            return
        finite = t[torch.isfinite(t)]
        if finite.numel():
            self.lo = min(self.lo, float(finite.min()))
            self.hi = max(self.hi, float(finite.max()))
        if keep_samples and finite.numel():
            step = max(1, finite.numel() // _SAMPLES)
            self.samples.append(finite[::step].clone())

    def clipped(self, percentile: float) -> tuple[float, float]:
        """(lo, hi) of the kept samples at the percentile (the min/max without them)."""
        if not self.samples:
            return self.lo, self.hi
        data = torch.cat(self.samples).double()
        q = torch.tensor([1 - percentile / 100, percentile / 100], dtype=torch.float64)
        lo, hi = torch.quantile(data, q).tolist()
        return lo, hi


def calibrate(
    module: Module,
    batches: Sequence[Sequence[torch.Tensor]],
    values: Sequence[Value],
    keep_samples: bool = False,
) -> dict[int, ValueRange]:
    """id(value) -> its observed range over all `batches` (each a list of inputs)."""
    fn = module.main
    ranges = {id(v): ValueRange() for v in values}
    args = [a for a in fn.args if id(a) in ranges]

    def listen(op, outputs) -> None:
        for r, t in zip(op.results, outputs):
            if id(r) in ranges:
                ranges[id(r)].observe(t, keep_samples)

    interp = Interpreter(module, [listen])
    for i, batch in enumerate(batches):
        try:
            interp.run(*batch)
        except CuvilError as e:
            raise CuvilError(
                f"calibration batch {i} does not fit the model: {e.message}",
                hint="each calibration_data entry is one call's inputs, with the "
                "shapes and dtypes of the example inputs",
            ) from None
        for a in args:
            ranges[id(a)].observe(batch[fn.args.index(a)], keep_samples)
    return ranges


def qparams(lo: float, hi: float, activations: str) -> tuple[float, int, int, int]:
    """(scale, zero point, quant_min, quant_max) of a uint8 tensor holding [lo, hi].

    affine: the range widened to hold 0, scale = (hi - lo) / 255, zero point
    round(-lo / scale); symmetric: scale = max(|lo|, |hi|) / 127, zero point 128 and
    range [1, 255] (int8 with zero point 0, shifted by 128: VNNI multiplies u8 by s8)."""
    if activations == "symmetric":
        amax = max(abs(lo), abs(hi), 0.0)
        scale = f32(amax / 127) if amax > 0 else 1.0
        return _normal(scale), 128, 1, 255
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = f32((hi - lo) / 255) if hi > lo else 1.0
    scale = _normal(scale)
    zp = int(min(255, max(0, round(-lo / scale))))
    return scale, zp, 0, 255


def weight_qparams(w: torch.Tensor, axis: int = 0) -> list[float]:
    """Per-channel symmetric int8 scales of a weight: max |w| over the other dims / 127."""
    dims = [d for d in range(w.dim()) if d != axis]
    amax = w.detach().abs().double().amax(dim=dims) if dims else w.abs().double()
    return [_normal(f32(a / 127)) if a > 0 else 1.0 for a in amax.tolist()]


def _normal(scale: float) -> float:
    """Keep a scale where float32 and its inverse are normal numbers."""
    return f32(min(max(scale, 1e-30), 1e30))
