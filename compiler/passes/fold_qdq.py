"""``fold-qdq``: quantize / dequantize patterns into int8 and bf16 kernel ops.

int8: a linear, 2-d convolution (groups 1 or depthwise) or matmul with a constant 2-d
weight whose input is ``cuvil.dequantize`` of a uint8 tensor (per tensor) and whose weight is
``cuvil.dequantize`` of a constant int8 tensor with zero points 0 (per channel of the
output dim, or per tensor; a ``cuvil.quantize`` of a constant float weight, as torch.ao
PT2E exports it, is evaluated here) becomes ``cuvil.qlinear`` / ``cuvil.qconv2d``;
``cuvil.fake_quantize_dynamic`` inputs make a dynamic ``cuvil.qlinear``. Then the
epilogue: a following relu / clamp (the only use) becomes the op's clamp, and a
following per-tensor ``cuvil.quantize`` (the only use) its requantized int8 result.
A uint8 value read only by ``cuvil.qconv2d`` ops is stored ``nhwc``.

bf16: the same contractions of ``cuvil.round_bf16(x)`` and ``cuvil.round_bf16`` of a
constant weight become ``cuvil.linear_bf16`` / ``cuvil.conv2d_bf16`` with a bf16 param.

Anything else is left as it is: the q/dq ops then run as float32 fake quantization
(correct, not fast). Each folded layer is one action. The dead q/dq ops are removed.

Before::

    %q = cuvil.quantize(%x) {dtype = u8, scale = [0.02], zero_point = [128]} : ...
    %xd = cuvil.dequantize(%q) {scale = [0.02], zero_point = [128]} : ...
    %wd = cuvil.dequantize(%wq) {axis = 0, scale = [...], zero_point = [...]} : ...
    %y = cuvil.linear(%xd, %wd, %b) : ...
    %r = cuvil.relu(%y) : ...

After::

    %q = cuvil.quantize(%x) {dtype = u8, scale = [0.02], zero_point = [128]} : ...
    %r = cuvil.qlinear(%q, %wq, %b) {clamp_min = 0.0, w_scale = [...], x_scale = 0.02,
                                     x_zero_point = 128} : ...
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..ir.core import Function, Module, Operation, Value
from ..ir.location import fuse
from ..ir.ops import (
    ClampOp,
    Conv2dBf16Op,
    Conv2dOp,
    DequantizeOp,
    FakeQuantizeDynamicOp,
    LinearBf16Op,
    LinearOp,
    MatmulBf16Op,
    MatmulOp,
    ParamOp,
    QConv2dOp,
    QLinearOp,
    QuantizeOp,
    RoundBf16Op,
)
from ..ir.ops.quant_linalg import MAX_QK
from ..ir.types import DType, TensorType
from .base import ModulePass, PassContext, main_functions
from .fold_constants import known_value
from .registry import register_pass
from .rewrite import fresh_param_name, insert_before, is_output, replace_value, users

__all__ = ["FoldQdqPass"]


@register_pass
@dataclass(frozen=True)
class FoldQdqPass(ModulePass):
    name = "fold-qdq"

    def apply(self, module: Module, ctx: PassContext) -> bool:
        changed = False
        for fn in main_functions(module):
            for op in [
                o for o in fn.ops if isinstance(o, (LinearOp, Conv2dOp, MatmulOp))
            ]:
                match = _int8(module, op) or _bf16(module, op)
                if match is None:
                    continue
                cls, operands, attrs, dead = match
                chain, extra = _epilogue(fn, op, cls)
                node = op.loc.nodes[0] if op.loc.nodes else op.name
                if not ctx.allow_action(f"fold q/dq into {cls.name} ({node})"):
                    continue
                _replace(module, fn, op, cls, operands, {**attrs, **extra}, chain, dead)
                changed = True
            changed |= _nhwc(fn, ctx)
        return changed


def _weight_int8(module: Module, w: Value, axis: int):
    """(int8 data, per-channel scales) of a dequantized constant weight, or None."""
    dq = w.owner
    if not isinstance(dq, DequantizeOp) or any(dq.attrs["zero_point"]):
        return None
    src = dq.operands[0]
    data = known_value(module, src)
    if data is None and isinstance(src.owner, QuantizeOp):
        inner = known_value(module, src.owner.operands[0])
        data = src.owner.reference(inner) if inner is not None else None
    if data is None or data.dtype != torch.int8 or data.dim() != 2 and axis == 1:
        return None
    scales = list(dq.attrs["scale"])
    if dq.attrs.get("axis") is None:
        scales = scales * data.shape[axis]
    elif dq.attrs["axis"] != axis:
        return None
    return data, scales


def _int8(module: Module, op: Operation):
    """(class, operands, attrs, dead ops) when `op` is an int8 QDQ pattern."""
    x_op = op.operands[0].owner
    dynamic = isinstance(x_op, FakeQuantizeDynamicOp)
    static = (
        isinstance(x_op, DequantizeOp)
        and x_op.attrs.get("axis") is None
        and x_op.operands[0].type.dtype is DType.u8
    )
    if not (static or dynamic) or not _contraction_ok(module, op):
        return None
    if isinstance(op, Conv2dOp) and (dynamic or not _qconv_groups_ok(op)):
        return None
    matmul = isinstance(op, MatmulOp)
    found = _weight_int8(module, op.operands[1], 1 if matmul else 0)
    if found is None:
        return None
    data, scales = found
    if matmul:
        data = data.t().contiguous()
    if data[0].numel() > MAX_QK:
        return None
    w = _param(module, op, data, "int8", None if matmul else op.operands[1].owner)
    attrs = {"w_scale": tuple(scales)}
    if static:
        attrs.update(
            x_scale=x_op.attrs["scale"][0], x_zero_point=x_op.attrs["zero_point"][0]
        )
    if isinstance(op, Conv2dOp):
        attrs.update({k: op.attrs[k] for k in ("stride", "padding", "dilation")})
        attrs["groups"] = op.attrs["groups"]
    x = x_op.operands[0]
    cls = QConv2dOp if isinstance(op, Conv2dOp) else QLinearOp
    dead = [op.operands[1].owner, x_op]
    return cls, [x, w, *op.operands[2:]], attrs, dead


def _bf16(module: Module, op: Operation):
    x_op, w_op = op.operands[0].owner, op.operands[1].owner
    if not isinstance(x_op, RoundBf16Op) or not isinstance(w_op, RoundBf16Op):
        return None
    data = known_value(module, w_op.operands[0])
    if data is None and isinstance(op, MatmulOp) and op.result.type.is_static:
        operands = [x_op.operands[0], w_op.operands[0]]  # two activations
        return MatmulBf16Op, operands, {}, [w_op, x_op]
    if data is None or not _contraction_ok(module, op):
        return None
    if isinstance(op, Conv2dOp) and op.attrs["groups"] != 1:
        return None
    if isinstance(op, MatmulOp):
        if data.dim() != 2:
            return None
        data = data.t()
    w = _param(module, op, data.to(torch.bfloat16).contiguous(), "bf16", None)
    cls = Conv2dBf16Op if isinstance(op, Conv2dOp) else LinearBf16Op
    attrs = {}
    if isinstance(op, Conv2dOp):
        attrs = {k: op.attrs[k] for k in ("stride", "padding", "dilation")}
    return cls, [x_op.operands[0], w, *op.operands[2:]], attrs, [w_op, x_op]


def _qconv_groups_ok(op: Operation) -> bool:
    """groups 1, or depthwise (groups = C = O, one input channel per filter)."""
    groups, (o, per) = op.attrs["groups"], op.operands[1].type.shape[:2]
    return groups == 1 or (groups == o == op.operands[0].type.shape[1] and per == 1)


def _contraction_ok(module: Module, op: Operation) -> bool:
    if not op.result.type.is_static or op.operands[0].type.layout != "contiguous":
        return False
    if isinstance(op, MatmulOp) and op.operands[1].type.rank != 2:
        return False
    return len(op.operands) < 3 or known_value(module, op.operands[2]) is not None


def _param(module: Module, op: Operation, data: torch.Tensor, kind: str, dq) -> Value:
    """The weight as a param value: the dequantized param itself when it has the data,
    else a new param ``<name>.<kind>`` inserted before `op`."""
    if dq is not None and isinstance(dq.operands[0].owner, ParamOp):
        if known_value(module, dq.operands[0]) is data:
            return dq.operands[0]
    base = op.operands[1].name or "weight"
    name = fresh_param_name(module, f"{base}.{kind}")
    module.add_param(name, data)
    fn = module.main
    return insert_before(fn, op, ParamOp.of(module, name, loc=op.loc)).result


def _epilogue(fn: Function, op: Operation, cls) -> tuple[list[Operation], dict]:
    """The relu / clamp and int8 quantize after `op` that its kernel computes."""
    chain, attrs, cur = [], {}, op.result
    if cls is MatmulBf16Op:  # no epilogue of its own
        return chain, attrs
    nxt = _only_user(fn, cur)
    if isinstance(nxt, ClampOp) or (nxt is not None and nxt.name == "cuvil.relu"):
        lo = 0.0 if nxt.name == "cuvil.relu" else nxt.attrs.get("min")
        hi = None if nxt.name == "cuvil.relu" else nxt.attrs.get("max")
        attrs.update(clamp_min=None if lo is None else float(lo))
        attrs.update(clamp_max=None if hi is None else float(hi))
        chain.append(nxt)
        cur = nxt.result
        nxt = _only_user(fn, cur)
    quantized = cls in (QLinearOp, QConv2dOp)
    if quantized and isinstance(nxt, QuantizeOp) and nxt.attrs.get("axis") is None:
        a = nxt.attrs
        attrs.update(
            out_dtype=a["dtype"],
            out_scale=a["scale"][0],
            out_zero_point=a["zero_point"][0],
        )
        attrs.update(out_quant_min=a.get("quant_min"), out_quant_max=a.get("quant_max"))
        chain.append(nxt)
    return chain, attrs


def _only_user(fn: Function, v: Value) -> Operation | None:
    found = users(v)
    if len(found) != 1 or len(v.uses) != 1 or is_output(fn, v):
        return None
    return found[0]


def _replace(module, fn, op, cls, operands, attrs, chain, dead) -> None:
    last = chain[-1] if chain else op
    loc = fuse(op.loc, *(o.loc for o in chain))
    new = cls.build(*operands, loc=loc, name=last.result.name, **attrs)
    insert_before(fn, last, new)
    replace_value(fn, last.result, new.result)
    for o in [*reversed(chain), op, *dead]:
        _erase_dead(fn, o)


def _erase_dead(fn: Function, op: Operation | None) -> None:
    """Erase `op` and then its operands' producers when nothing uses them any more."""
    if (
        op is None
        or op not in fn.ops
        or any(r.uses or is_output(fn, r) for r in op.results)
    ):
        return
    producers = [v.owner for v in op.operands]
    fn.erase(op)
    for p in producers:
        if isinstance(p, (DequantizeOp, QuantizeOp, RoundBf16Op, ParamOp)):
            _erase_dead(fn, p)


def _nhwc(fn: Function, ctx: PassContext) -> bool:
    """uint8 results read only by qconv2d ops (as their input) are stored nhwc."""
    changed = False
    for op in fn.ops:
        if not isinstance(op, (QuantizeOp, QConv2dOp)) or op.result.type.rank != 4:
            continue
        t = op.result.type
        if t.layout != "contiguous" or t.dtype not in (DType.u8, DType.i8):
            continue
        if isinstance(op, QuantizeOp) and op.attrs.get("axis") is not None:
            continue
        readers = users(op.result)
        if (
            not readers
            or is_output(fn, op.result)
            or not all(
                isinstance(r, QConv2dOp) and all(i == 0 for o, i in op.result.uses)
                for r in readers
            )
        ):
            continue
        if ctx.allow_action(f"store {op.result.name or op.name} nhwc for qconv2d"):
            op.attrs["layout"] = "nhwc"
            op.results[0].type = TensorType(t.shape, t.dtype, "nhwc")
            changed = True
    return changed
