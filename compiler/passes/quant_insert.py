"""The QDQ form: quantize / dequantize ops put around the contractions to quantize.

``layers(module, mode, dynamic)`` lists every contraction of the main function with
whether it can be quantized (and why not); ``insert_qdq`` rewrites the chosen ones into
the "fake-quant" model, the same form a torch.ao PT2E export has:

- static int8: ``x -> cuvil.quantize {calibrated scale, zp} -> cuvil.dequantize``, the
  weight ``cuvil.param @w.int8`` (per-channel symmetric int8, scales max|w|/127) ->
  ``cuvil.dequantize {axis}``; the bias stays float32;
- dynamic int8: ``x -> cuvil.fake_quantize_dynamic``, the weight as above;
- bf16: ``x -> cuvil.round_bf16``, ``w -> cuvil.round_bf16``.

Run by the interpreter this *is* the fake-quant reference (docs/QUANT.md); the
``fold-qdq`` pass then turns each pattern into one int8 / bf16 kernel op.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from ..errors import CuvilError
from ..ir.core import Module, Operation, Value
from ..ir.ops import (
    Conv2dOp,
    ConvOp,
    DequantizeOp,
    FakeQuantizeDynamicOp,
    LinearOp,
    MatmulOp,
    ParamOp,
    QuantizeOp,
    RoundBf16Op,
)
from ..ir.ops.quant import quantize_tensor
from ..ir.ops.quant_linalg import MAX_QK
from ..ir.types import DType
from .base import main_functions
from .fold_constants import known_value
from .quant_calib import weight_qparams
from .rewrite import fresh_param_name, insert_before

__all__ = ["Layer", "layers", "select", "insert_qdq", "layer_names"]


@dataclass
class Layer:
    """One contraction: its op, names, and what quantization does with it."""

    op: Operation
    name: str  # the FX node (the first one of a folded conv + batch norm)
    kind: str  # linear | conv2d | matmul
    status: str = "float"  # int8 | bf16 | float
    reason: str | None = None  # why it stays float32

    @property
    def names(self) -> set[str]:
        return layer_names(self.op)


def layer_names(op: Operation) -> set[str]:
    """The names `skip` may use for an op: its FX nodes and nn.Module paths."""
    parts = op.loc.parts
    return {*op.loc.nodes, *(p.module for p in parts if p.module)}


def _why_not(module: Module, op: Operation, mode: str, dynamic: bool) -> str | None:
    x = op.operands[0].type
    if any(v.type.dtype is not DType.f32 for v in op.operands):
        return "its operands are not float32"
    if not op.result.type.is_static:
        return "its shapes are not static"
    if isinstance(op, MatmulOp):
        b = op.operands[1]
        if mode == "int8" and (b.type.rank != 2 or known_value(module, b) is None):
            return "a matmul of two activations (int8 quantizes constant weights)"
    elif known_value(module, op.operands[1]) is None:
        return "its weight is not a constant"
    if len(op.operands) > 2 and known_value(module, op.operands[2]) is None:
        return "its bias is not a constant"
    if isinstance(op, ConvOp):
        if not isinstance(op, Conv2dOp):
            return "only 2-d convolutions are quantized"
        groups, (o, per) = op.attrs["groups"], op.operands[1].type.shape[:2]
        depthwise = groups == o == x.shape[1] and per == 1
        if groups != 1 and not (depthwise and mode == "int8"):
            kind = "depthwise" if depthwise else "grouped"
            return f"a {kind} convolution (groups = {groups}) has no {mode} kernel"
        if x.layout != "contiguous":
            return f"its input has layout {x.layout}"
        if mode == "int8" and dynamic:
            return "dynamic int8 quantizes linear layers (use static int8 for convolutions)"
    k = op.operands[1].type.numel() // op.operands[1].type.shape[0]
    if isinstance(op, MatmulOp):
        k = op.operands[1].type.shape[-2]
    if mode == "int8" and k > MAX_QK:
        return f"K = {k} could overflow int32 accumulators"
    return None


def layers(module: Module, mode: str, dynamic: bool) -> list[Layer]:
    found = []
    for fn in main_functions(module)[:1]:
        for op in fn.ops:
            if not isinstance(op, (LinearOp, ConvOp, MatmulOp)):
                continue
            kind = {LinearOp: "linear", MatmulOp: "matmul"}.get(type(op), "conv2d")
            name = op.loc.nodes[0] if op.loc.nodes else op.result.name or op.name
            why = _why_not(module, op, mode, dynamic)
            found.append(Layer(op, name, kind, "float" if why else mode, why))
    return found


def select(found: list[Layer], skip: Sequence[str]) -> None:
    """Leave the layers `skip` names in float32; an unknown name is a CuvilError."""
    for name in skip:
        hits = [layer for layer in found if name in layer.names]
        if not hits:
            known = sorted({n for layer in found for n in layer.names})
            raise CuvilError(
                f"quantize skip: no layer is called '{name}'",
                hint=f"layers (FX nodes or module paths): {', '.join(known) or 'none'}",
            )
        for layer in hits:
            if layer.status != "float":
                layer.status, layer.reason = "float", "skipped (quantize skip)"


def insert_qdq(
    module: Module,
    found: list[Layer],
    mode: str,
    dynamic: bool,
    act_params: dict[int, tuple[float, int, int, int]],
) -> None:
    """Rewrite each layer whose status is not float into the QDQ form (module doc);
    `act_params`: id(input value) -> (scale, zp, qmin, qmax) for static int8."""
    fn = module.main
    shared: dict[int, Value] = {}
    for layer in found:
        if layer.status == "float":
            continue
        op = layer.op
        x = op.operands[0]
        if id(x) not in shared:
            shared[id(x)] = _activation(fn, op, x, mode, dynamic, act_params.get(id(x)))
        op.set_operand(0, shared[id(x)])
        op.set_operand(1, _weight(module, fn, op, mode))


def _activation(fn, op, x: Value, mode, dynamic, params) -> Value:
    base = x.name or "x"
    if mode == "bf16":
        new = insert_before(
            fn, op, RoundBf16Op.build(x, loc=op.loc, name=f"{base}_bf16")
        )
        return new.result
    if dynamic:
        new = FakeQuantizeDynamicOp.build(x, loc=op.loc, name=f"{base}_fq")
        return insert_before(fn, op, new).result
    scale, zp, qmin, qmax = params
    limits = {} if (qmin, qmax) == (0, 255) else {"quant_min": qmin, "quant_max": qmax}
    q = QuantizeOp.build(
        x,
        scale=(scale,),
        zero_point=(zp,),
        dtype=DType.u8,
        loc=op.loc,
        name=f"{base}_q",
        **limits,
    )
    dq = DequantizeOp.build(
        q.result, scale=(scale,), zero_point=(zp,), loc=op.loc, name=f"{base}_dq"
    )
    insert_before(fn, op, q)
    return insert_before(fn, op, dq).result


def _weight(module: Module, fn, op: Operation, mode: str) -> Value:
    w_value = op.operands[1]
    if mode == "bf16":
        new = RoundBf16Op.build(w_value, loc=op.loc, name=f"{w_value.name or 'w'}_bf16")
        return insert_before(fn, op, new).result
    w = known_value(module, w_value)
    axis = 1 if isinstance(op, MatmulOp) else 0
    scales = weight_qparams(w, axis)
    zeros = (0,) * len(scales)
    wq = quantize_tensor(w, scales, zeros, axis, -127, 127, torch.int8).contiguous()
    base = w_value.owner.symbol() if isinstance(w_value.owner, ParamOp) else None
    name = fresh_param_name(module, f"{base or w_value.name or 'weight'}.int8")
    module.add_param(name, wq)
    param = insert_before(fn, op, ParamOp.of(module, name, loc=op.loc))
    dq = DequantizeOp.build(
        param.result,
        scale=tuple(scales),
        zero_point=zeros,
        axis=axis,
        loc=op.loc,
        name=f"{name.replace('.', '_')}_dq",
    )
    return insert_before(fn, op, dq).result
