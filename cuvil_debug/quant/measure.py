"""The measurements of ``cuvil-debug quant``: how much accuracy quantization costs, where.

For a model, its example inputs and generated calibration / evaluation batches:

- **output**: the quantized native build against float eager (SQNR, max abs, cosine,
  top-1 agreement of the first output's last dim), the fake-quant model (the QDQ IR run
  by the reference interpreter with torch ops) against float eager, and the native
  build against the fake-quant model: the first two are quantization's error, the last
  one should be ~0 (the kernels are exact); if it is not, it is a bug, not quantization;
- **per layer** (each linear / conv / matmul): its output in the fake-quant model against
  the float model (the error that reached it), the model output's SQNR when *only that
  layer* is quantized (what it costs alone: the ranking), and the native kernel's result
  against the fake-quant model's same value (int8 results in quantization steps).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch

from cuvil.frontend import capture
from cuvil.ir import ops
from cuvil.ir.core import Module, Operation
from cuvil.ir.interpreter import Interpreter
from cuvil.options import CompileOptions, QuantOptions
from cuvil.passes import PassContext, PassPipeline
from cuvil.passes.quant_insert import insert_qdq, layers
from cuvil.pipeline import compile_module
from cuvil.quantize import PREPARE, QuantInfo, quantize_module
from cuvil.runtime.stepper import Stepper

__all__ = ["Metrics", "LayerRow", "QuantReport", "metrics", "measure", "generate"]

_CONTRACTIONS = (ops.LinearOp, ops.ConvOp, ops.MatmulOp)
_KERNELS = (ops.QLinearOp, ops.QConv2dOp, ops.LinearBf16Op, ops.Conv2dBf16Op)


@dataclass(frozen=True)
class Metrics:
    sqnr_db: float  # inf when exact
    max_abs: float
    cosine: float


def metrics(ref: torch.Tensor, got: torch.Tensor) -> Metrics:
    ref, got = ref.detach().double().reshape(-1), got.detach().double().reshape(-1)
    noise = float((ref - got).pow(2).sum())
    signal = float(ref.pow(2).sum())
    sqnr = math.inf if noise == 0 else 10 * math.log10(max(signal, 1e-300) / noise)
    denom = float(ref.norm() * got.norm())
    cosine = float(ref @ got) / denom if denom else (1.0 if noise == 0 else 0.0)
    return Metrics(sqnr, float((ref - got).abs().max()) if ref.numel() else 0.0, cosine)


@dataclass
class LayerRow:
    name: str
    kind: str
    status: str
    reason: str | None
    scale: float | None = None
    zero_point: int | None = None
    alone: Metrics | None = None  # model output, only this layer quantized
    layer: Metrics | None = None  # this layer's output, fake-quant vs float
    native_steps: int | None = None  # int8 result: max |native - fake-quant| in steps
    native: Metrics | None = None  # float result: native vs fake-quant


@dataclass
class QuantReport:
    model: str
    info: QuantInfo
    calib: int
    evals: int
    output: Metrics  # native vs float eager
    fake_quant: Metrics  # fake-quant model vs float eager
    native_vs_fake: Metrics
    top1: tuple[int, int]  # rows whose argmax agrees, rows
    layers: list[LayerRow] = field(default_factory=list)


def generate(
    inputs: Sequence[torch.Tensor], n: int, seed: int
) -> list[list[torch.Tensor]]:
    """n batches like `inputs`: floats with each input's mean and std, integers within
    its range (token ids), booleans at random."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        batch = []
        for x in inputs:
            if x.dtype.is_floating_point:
                std = float(x.float().std()) if x.numel() > 1 else 1.0
                t = torch.randn(x.shape, generator=g) * (std or 1.0) + float(
                    x.float().mean()
                )
                batch.append(t.to(x.dtype))
            elif x.dtype == torch.bool:
                batch.append(torch.rand(x.shape, generator=g) > 0.5)
            else:
                lo, hi = int(x.min()), int(x.max())
                batch.append(
                    torch.randint(lo, hi + 1, x.shape, generator=g, dtype=x.dtype)
                )
        out.append(batch)
    return out


def _first(out) -> torch.Tensor:
    while isinstance(out, (tuple, list)):
        out = out[0]
    return out


def _interpret(module: Module, batch, watch: set[int] | None = None):
    """(outputs, {id(op): its first result}) of one run (ops in `watch` only)."""
    seen: dict[int, torch.Tensor] = {}

    def listen(op: Operation, outs) -> None:
        if watch is None or id(op) in watch:
            seen[id(op)] = outs[0]

    return Interpreter(module, [listen]).run(*batch), seen


def _contractions(module: Module) -> list[Operation]:
    return [op for op in module.main.ops if isinstance(op, _CONTRACTIONS)]


def measure(
    model: torch.nn.Module,
    inputs: Sequence[torch.Tensor],
    qopts: QuantOptions,
    calib: list[list[torch.Tensor]],
    evals: list[list[torch.Tensor]],
    name: str = "model",
    frontend: str = "fx",
    native_layers: bool = True,
) -> QuantReport:
    model.eval()
    float_ir = capture(model, list(inputs), frontend).module
    PassPipeline(PREPARE).run(float_ir, PassContext())
    qdq, info = quantize_module(float_ir.clone(), qopts, calib)
    compiled = compile_module(qdq.clone(), CompileOptions(quantize=info.options))
    eager, native, fake = [], [], []
    with torch.no_grad():
        for batch in evals:
            eager.append(_first(model(*batch)))
            native.append(_first(compiled(*batch)))
            fake.append(_first(_interpret(qdq, batch)[0]))
    cat = torch.cat
    rows = [cat([t.reshape(-1, t.shape[-1]) for t in ts]) for ts in (eager, native)]
    report = QuantReport(
        name,
        info,
        len(calib),
        len(evals),
        metrics(cat(eager), cat(native)),
        metrics(cat(eager), cat(fake)),
        metrics(cat(fake), cat(native)),
        (int((rows[0].argmax(-1) == rows[1].argmax(-1)).sum()), rows[0].shape[0]),
    )
    report.layers = _layer_rows(float_ir, qdq, info, qopts, evals, eager)
    if native_layers:
        _native_layers(report.layers, compiled.module, qdq, evals[0])
    report.layers.sort(key=lambda r: r.alone.sqnr_db if r.alone else math.inf)
    return report


def _layer_rows(float_ir, qdq, info: QuantInfo, qopts, evals, eager) -> list[LayerRow]:
    rows = [
        LayerRow(ly.name, ly.kind, ly.status, ly.reason, ly.scale, ly.zero_point)
        for ly in info.layers
    ]
    f_ops, q_ops = _contractions(float_ir), _contractions(qdq)
    f_vals = _interpret(float_ir, evals[0], {id(o) for o in f_ops})[1]
    q_vals = _interpret(qdq, evals[0], {id(o) for o in q_ops})[1]
    for i, row in enumerate(rows):
        if row.status == "float":
            continue
        row.layer = metrics(f_vals[id(f_ops[i])], q_vals[id(q_ops[i])])
        row.alone = _alone(float_ir, i, info, qopts, evals, eager)
    return rows


def _alone(float_ir, index, info: QuantInfo, qopts, evals, eager) -> Metrics:
    """The model output with only layer `index` quantized, against float eager."""
    one = float_ir.clone()
    found = layers(one, qopts.mode, qopts.dynamic)
    act = {}
    for i, layer in enumerate(found):
        if i != index:
            layer.status = "float"
            continue
        li = info.layers[i]
        if li.scale is not None:
            act[id(layer.op.operands[0])] = (
                li.scale,
                li.zero_point,
                li.quant_min,
                li.quant_max,
            )
    insert_qdq(one, found, qopts.mode, qopts.dynamic, act)
    with torch.no_grad():
        outs = [_first(_interpret(one, batch)[0]) for batch in evals]
    return metrics(torch.cat(eager), torch.cat(outs))


def _native_layers(rows: list[LayerRow], optimized: Module, qdq: Module, batch) -> None:
    """Each int8 / bf16 kernel's result against the fake-quant model's same value, with
    the kernel fed the fake-quant model's own inputs (isolated: an upstream rounding
    difference does not count against it). Values match by name: a folded op's result
    has the name of the value it replaced."""
    by_name = {
        op.result.name: op for op in qdq.main.ops if op.results and op.result.name
    }
    by_name.update({a.name: a for a in qdq.main.args if a.name})
    outs = _interpret(qdq, batch, {id(o) for o in by_name.values()})[1]
    outs.update({id(a): x for a, x in zip(qdq.main.args, batch)})
    stepper = Stepper(optimized)
    stepper.bind(*batch)
    for step in stepper.steps:
        _feed(stepper, step, by_name, outs)
        stepper.step(step.index)
        op = step.op
        if not isinstance(op, _KERNELS) or op.result.name not in by_name:
            continue
        ref = outs.get(id(by_name[op.result.name]))
        row = next((r for r in rows if r.name in op.loc.nodes), None)
        if ref is None or row is None:
            continue
        got = stepper.read(op.result)
        if got.dtype.is_floating_point:
            row.native = metrics(ref, got)
        else:
            row.native_steps = int((got.int() - ref.int()).abs().max())


def _feed(stepper: Stepper, step, by_name: dict, outs: dict) -> None:
    """Write the fake-quant model's values into the step's operands (not params)."""
    if step.op is None or isinstance(step.op, (ops.ParamOp, ops.ConstantOp)):
        return
    for v in step.operands:
        source = by_name.get(v.name)
        ref = outs.get(id(source)) if source is not None else None
        if ref is None or not stepper.owns(v) or isinstance(v.owner, ops.ParamOp):
            continue
        if tuple(ref.shape) == tuple(v.type.shape) and ref.dtype == v.type.dtype.torch:
            stepper.write(v, ref)
