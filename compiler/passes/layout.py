"""``layout-nhwc``: run regions of 2-D convolutions channels-last (NHWC).

A region is a maximal connected set of ops that can work on NHWC buffers: ``conv2d``
(groups 1 or depthwise, float32, constant weight), ``batch_norm``,
``max_pool2d``/``avg_pool2d``, ``adaptive_avg_pool2d`` (float), elementwise ops on rank-4
tensors (and scalars), and ``cuvil.fused`` ops whose body is such an elementwise chain
or a conv with its GEMM epilogue. Regions without a convolution are left alone. In a region every activation becomes ``nhwc`` (weights, biases and
statistics stay contiguous); a ``cuvil.relayout`` to ``nhwc`` is put before the first
use of each value entering the region (located at the op it serves) and one back to
``contiguous`` after each value leaving it (to flatten, linear, a function
result ...; located at its first outside user). Values are unchanged: a relayout
is the identity on logical tensors. Each region is one action.

Before::

    %c = cuvil.conv2d(%x, %w) : (tensor<1x3x8x8xf32>, ...) -> tensor<1x8x6x6xf32>
    %r = cuvil.relu(%c) : (tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
    %f = cuvil.reshape(%r) {shape = [1, 288]} : (...) -> tensor<1x288xf32>

After::

    %x_nhwc = cuvil.relayout(%x) {layout = "nhwc"} : (...) -> tensor<1x3x8x8xf32, nhwc>
    %c = cuvil.conv2d(%x_nhwc, %w) : (...) -> tensor<1x8x6x6xf32, nhwc>
    %r = cuvil.relu(%c) : (tensor<1x8x6x6xf32, nhwc>) -> tensor<1x8x6x6xf32, nhwc>
    %r_nchw = cuvil.relayout(%r) {layout = "contiguous"} : (...) -> tensor<1x8x6x6xf32>
    %f = cuvil.reshape(%r_nchw) {shape = [1, 288]} : (...) -> tensor<1x288xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.core import Function, Module, Operation, Value
from ..ir.ops import (
    AdaptiveAvgPool2dOp,
    AvgPool2dOp,
    BatchNormOp,
    ConstantOp,
    Conv2dOp,
    ConvOp,
    FusedOp,
    MaxPool2dOp,
    ParamOp,
    RelayoutOp,
)
from ..ir.ops.fused import body_of
from ..ir.types import DType
from .base import ModulePass, PassContext, main_functions
from .fuse_elementwise import is_elementwise
from .registry import register_pass
from .rewrite import insert_before, is_output, users

__all__ = ["LayoutNhwcPass"]


@register_pass
@dataclass(frozen=True)
class LayoutNhwcPass(ModulePass):
    name = "layout-nhwc"

    def apply(self, module: Module, ctx: PassContext) -> bool:
        changed = False
        for fn in main_functions(module):
            for region in _regions(module, fn):
                convs = sum(_conv_of(module, op) is not None for op in region)
                what = f"convert {len(region)} ops ({convs} conv2d) to nhwc"
                if ctx.allow_action(what):
                    _convert(module, fn, region)
                    changed = True
        return changed


# ---- which ops can run channels-last ------------------------------------------------------
def _conv_ok(conv: Operation, weight: Value) -> bool:
    t = conv.results[0].type
    return (
        isinstance(conv, Conv2dOp)
        and _groups_ok(conv)
        and t.is_static
        and (t.numel() or 0) > 0
        and all(v.type.dtype is DType.f32 for v in conv.operands)
        and (conv.operands[0].type.numel() or 0) > 0
        and isinstance(weight.owner, (ParamOp, ConstantOp))
    )


def _groups_ok(conv: Operation) -> bool:
    """One group, or depthwise (each channel its own group, one output each): the
    channels-last kernels code generation has (codegen/conv.py, depthwise.py)."""
    g = conv.attrs["groups"]
    if g == 1:
        return True
    c_in, c_out = conv.operands[0].type.shape[1], conv.results[0].type.shape[1]
    return g == c_in == c_out


def _conv_of(module: Module, op: Operation) -> Operation | None:
    """The convolution `op` is (or whose fused body starts with), when it may go NHWC."""
    if isinstance(op, Conv2dOp):
        return op if _conv_ok(op, op.operands[1]) else None
    if isinstance(op, FusedOp):
        body = body_of(module, op)
        first = body.ops[0] if body.ops else None
        if isinstance(first, Conv2dOp) and first.operands[1] in body.args:
            outer = op.operands[body.args.index(first.operands[1])]
            return first if _conv_ok(first, outer) else None
    return None


def _activations(module: Module, op: Operation) -> list[int]:
    """Positions of the operands that become NHWC (weights, biases, stats do not)."""
    if isinstance(
        op, (ConvOp, BatchNormOp, MaxPool2dOp, AvgPool2dOp, AdaptiveAvgPool2dOp)
    ):
        return [0]
    if isinstance(op, FusedOp):
        body = body_of(module, op)
        params = {
            id(v) for o in body.ops if isinstance(o, ConvOp) for v in o.operands[1:]
        }
        return [
            i
            for i, a in enumerate(body.args)
            if a.type.rank == 4 and id(a) not in params
        ]
    return [i for i, v in enumerate(op.operands) if v.type.rank == 4]


def _capable(module: Module, op: Operation, bodies: dict[str, int]) -> bool:
    if any(v.type.layout != "contiguous" for v in op.operands) or len(op.results) != 1:
        return False
    if op.results[0].type.rank != 4:
        return False
    if isinstance(op, Conv2dOp):
        return _conv_of(module, op) is not None
    if isinstance(op, (BatchNormOp, MaxPool2dOp, AvgPool2dOp)):
        return True
    if isinstance(op, AdaptiveAvgPool2dOp):  # global pooling, SE blocks' squeeze
        return op.operands[0].type.dtype.is_float
    if isinstance(op, FusedOp):
        body = body_of(module, op)
        if bodies.get(body.name, 0) != 1 or not body.ops:
            return False
        tail = body.ops[1:] if _conv_of(module, op) is not None else body.ops
        others = set(_activations(module, op))
        return all(is_elementwise(o) for o in tail) and all(
            i in others or op.operands[i].type.rank == 0 or _is_weight(body, i)
            for i in range(len(op.operands))
        )
    return is_elementwise(op) and all(v.type.rank in (0, 4) for v in op.operands)


def _is_weight(body: Function, i: int) -> bool:
    first = body.ops[0]
    return isinstance(first, ConvOp) and body.args[i] in first.operands[1:]


# ---- regions ------------------------------------------------------------------------------
def _regions(module: Module, fn: Function) -> list[list[Operation]]:
    """Connected groups of capable ops (program order) that contain a convolution."""
    bodies: dict[str, int] = {}
    for op in fn.ops:
        if isinstance(op, FusedOp):
            name = op.attrs["body"].name
            bodies[name] = bodies.get(name, 0) + 1
    capable = [op for op in fn.ops if _capable(module, op, bodies)]
    parent = {id(op): id(op) for op in capable}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for op in capable:
        for v in op.operands:
            if v.owner is not None and id(v.owner) in parent:
                parent[find(id(v.owner))] = find(id(op))
    groups: dict[int, list[Operation]] = {}
    for op in capable:
        groups.setdefault(find(id(op)), []).append(op)
    return [
        g for g in groups.values() if any(_conv_of(module, op) is not None for op in g)
    ]


# ---- rewriting ----------------------------------------------------------------------------
def _convert(module: Module, fn: Function, region: list[Operation]) -> None:
    inside = {id(op) for op in region}
    entries: dict[int, Value] = {}
    for op in region:
        for i in _activations(module, op):
            v = op.operands[i]
            if v.type.layout == "nhwc":  # made by an earlier op of the region
                continue
            if id(v) not in entries:
                rel = _relayout(v, "nhwc", op, f"{v.name or 'v'}_nhwc")
                insert_before(fn, op, rel)
                entries[id(v)] = rel.result
            op.set_operand(i, entries[id(v)])
        _retype(module, op)
    for op in region:
        _exit(fn, op.results[0], inside)


def _relayout(v: Value, layout: str, served: Operation, name: str) -> Operation:
    return RelayoutOp.build(v, layout=layout, loc=served.loc, name=name)


def _exit(fn: Function, v: Value, inside: set[int]) -> None:
    """One relayout back to contiguous for every use of `v` outside the region."""
    outside = [u for u in users(v) if id(u) not in inside]
    if not outside and not is_output(fn, v):
        return
    position = {id(op): i for i, op in enumerate(fn.ops)}
    served = min(outside, key=lambda u: position[id(u)]) if outside else v.owner
    rel = _relayout(v, "contiguous", served, f"{v.name or 'v'}_nchw")
    fn.ops.insert(position[id(v.owner)] + 1, rel)
    for u, i in list(v.uses):
        if id(u) not in inside and u is not rel:
            u.set_operand(i, rel.result)
    fn.outputs = [rel.result if o is v else o for o in fn.outputs]


def _retype(module: Module, op: Operation) -> None:
    """Re-infer result types from the (now NHWC) operands; a fused body is retyped too."""
    if isinstance(op, FusedOp):
        body = body_of(module, op)
        for a, v in zip(body.args, op.operands, strict=True):
            a.type = v.type
        _infer_all(body.ops)
        body.result_types = [v.type for v in body.outputs]
        for r, t in zip(op.results, body.result_types, strict=True):
            r.type = t
        return
    _infer_all([op])


def _infer_all(ops: list[Operation]) -> None:
    for o in ops:
        for r, t in zip(o.results, o.infer_types(), strict=True):
            r.type = t
