"""``cuvil.compile(..., quantize=...)``: the captured float32 IR into its QDQ form.

Steps (docs/QUANT.md): fold batch norms into their convolutions first (the folded
weight is what gets quantized), list the contractions and which of them can be
quantized (``skip`` leaves named ones in float32), calibrate the inputs of the chosen
ones on ``calibration_data`` (static int8), insert the quantize / dequantize ops, and
resolve the instruction set (``isa``, cpu.py) into ``module.isa``. The pass pipeline's
``fold-qdq`` then makes the int8 / bf16 kernel ops. ``QuantInfo`` is what a compiled
model reports about it (``CompiledModule.quantization``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from .codegen.cpu import host_features, resolve_isa
from .errors import CuvilError
from .ir.core import Module
from .ir.verifier import verify
from .options import QuantOptions
from .passes import PassContext, PassPipeline
from .passes.quant_calib import calibrate, qparams
from .passes.quant_insert import Layer, insert_qdq, layers, select

__all__ = ["QuantInfo", "LayerInfo", "quantize_module", "calibration_batches"]

PREPARE = "dce,cse,fold-constants,fold-bn,dce"


@dataclass(frozen=True)
class LayerInfo:
    """One contraction of a quantized build: kept in float32 (with the reason) or not."""

    name: str
    kind: str
    status: str  # int8 | bf16 | float
    reason: str | None = None
    scale: float | None = None  # static int8: the input's scale, zero point, range
    zero_point: int | None = None
    quant_min: int | None = None
    quant_max: int | None = None


@dataclass
class QuantInfo:
    """What quantization did: the resolved options (isa included), the features of the
    CPU they were resolved on, and every contraction's fate."""

    options: QuantOptions
    features: tuple[str, ...]
    layers: list[LayerInfo] = field(default_factory=list)
    batches: int = 0  # calibration batches seen

    def to_dict(self) -> dict[str, Any]:
        return {
            "options": self.options.to_dict(),
            "features": list(self.features),
            "layers": [dataclasses.asdict(layer) for layer in self.layers],
            "calibration_batches": self.batches,
        }


_FEATURES = (
    "avx512f",
    "avx512bw",
    "avx512vnni",
    "avx512bf16",
    "amx-tile",
    "amx-int8",
    "amx-bf16",
)


def calibration_batches(data: Any, n_inputs: int) -> list[list[torch.Tensor]]:
    """``calibration_data`` as a list of input lists: a tensor per batch for a model of
    one input, or a tuple / list of tensors per batch."""
    if data is None:
        return []
    if isinstance(data, torch.Tensor) or not isinstance(data, Sequence):
        raise CuvilError(
            "calibration_data must be a list of batches",
            hint="e.g. calibration_data=[x1, x2, ...], or [(a1, b1), ...] for a model "
            "of several inputs",
        )
    batches = []
    for i, item in enumerate(data):
        batch = [item] if isinstance(item, torch.Tensor) else list(item)
        if len(batch) != n_inputs or not all(
            isinstance(t, torch.Tensor) for t in batch
        ):
            raise CuvilError(
                f"calibration batch {i} has {len(batch)} inputs, the model takes {n_inputs}",
                hint="each calibration_data entry is one call's inputs",
            )
        batches.append(batch)
    return batches


def quantize_module(
    module: Module, opts: QuantOptions, batches: list[list[torch.Tensor]]
) -> tuple[Module, QuantInfo]:
    """The QDQ form of `module` (rewritten in place) and what was done."""
    static = opts.mode == "int8" and not opts.dynamic
    if static and not batches:
        raise CuvilError(
            'quantize="int8" (static) needs calibration data',
            hint="pass calibration_data=[batch, ...] (inputs like the example ones), "
            'or quantize={"int8": True, "dynamic": True} to quantize activations at '
            "run time",
        )
    if batches and not static:
        raise CuvilError(
            f"calibration_data is for static int8, not for {_mode_name(opts)}",
            hint="leave calibration_data out",
        )
    isa = resolve_isa(opts.mode, opts.isa)
    opts = dataclasses.replace(opts, isa=isa)
    PassPipeline(PREPARE).run(module, PassContext())
    found = layers(module, opts.mode, opts.dynamic)
    select(found, opts.skip)
    chosen = [layer for layer in found if layer.status != "float"]
    if not chosen:
        why = (
            "; ".join(f"{ly.name}: {ly.reason}" for ly in found) or "no linear or conv"
        )
        raise CuvilError(
            f"quantize={opts.mode!r}: no layer of the model can be quantized ({why})",
            hint="docs/QUANT.md lists what is quantized",
        )
    act = _activation_params(module, chosen, batches, opts) if static else {}
    have = host_features()
    info = QuantInfo(
        opts, tuple(f for f in _FEATURES if f in have), batches=len(batches)
    )
    info.layers = [_info(layer, act) for layer in found]
    insert_qdq(module, found, opts.mode, opts.dynamic, act)
    verify(module)
    module.isa = {opts.mode: isa}
    return module, info


def _mode_name(opts: QuantOptions) -> str:
    return "dynamic int8" if opts.dynamic else opts.mode


def _activation_params(
    module: Module, chosen: list[Layer], batches, opts: QuantOptions
) -> dict[int, tuple[float, int, int, int]]:
    values = list({id(ly.op.operands[0]): ly.op.operands[0] for ly in chosen}.values())
    ranges = calibrate(module, batches, values, opts.calibration == "percentile")
    params = {}
    for v in values:
        r = ranges[id(v)]
        lo, hi = (
            r.clipped(opts.percentile)
            if opts.calibration == "percentile"
            else (r.lo, r.hi)
        )
        if lo > hi:  # never observed a finite value
            lo = hi = 0.0
        params[id(v)] = qparams(lo, hi, opts.activations)
    return params


def _info(layer: Layer, act: dict) -> LayerInfo:
    p = act.get(id(layer.op.operands[0])) if layer.status != "float" else None
    return LayerInfo(
        layer.name,
        layer.kind,
        layer.status,
        layer.reason,
        *(p if p else (None,) * 4),
    )
