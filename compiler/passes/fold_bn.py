"""``fold-bn``: fold an inference batch norm into the convolution or linear before it.

``bn(conv(x, w, b))`` with constant weights and statistics is ``conv(x, w', b')`` with
``s = gamma / sqrt(var + eps)``, ``w' = w * s`` (per output channel) and
``b' = (b - mean) * s + beta``. The folded weights become new params; the conv's only use
must be the batch norm. Each folded pair is one action; the new conv's location is
``fused[conv, bn]``.

Before::

    %c = cuvil.conv2d(%x, %w, %b) {...} : (...) -> tensor<1x8x6x6xf32>
    %y = cuvil.batch_norm(%c, %mean, %var, %gamma, %beta) {eps = 1e-05} : (...) -> ...

After::

    %w1 = cuvil.param() {name = @conv.weight.bn_folded} : () -> tensor<8x3x3x3xf32>
    %b1 = cuvil.param() {name = @conv.bias.bn_folded} : () -> tensor<8xf32>
    %y = cuvil.conv2d(%x, %w1, %b1) {...} : (...) -> tensor<1x8x6x6xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..ir.core import Function, Module, Operation
from ..ir.location import fuse
from ..ir.ops import BatchNormOp, ConvOp, LinearOp, ParamOp
from .base import ModulePass, PassContext, main_functions
from .fold_constants import known_value
from .registry import register_pass
from .rewrite import fresh_param_name, insert_before, is_output, replace_value

__all__ = ["FoldBatchNormPass"]


@register_pass
@dataclass(frozen=True)
class FoldBatchNormPass(ModulePass):
    name = "fold-bn"

    def apply(self, module: Module, ctx: PassContext) -> bool:
        changed = False
        for fn in main_functions(module):
            for bn in [op for op in fn.ops if isinstance(op, BatchNormOp)]:
                data = _foldable(module, fn, bn)
                if data and ctx.allow_action(
                    f"fold batch_norm into {bn.operands[0].owner.name}"
                ):
                    _fold(module, fn, bn, *data)
                    changed = True
        return changed


def _foldable(module: Module, fn: Function, bn: Operation):
    """(producer, weight, bias or None, bn stats) when the pair can fold, else None."""
    prod = bn.operands[0].owner
    if not isinstance(prod, (ConvOp, LinearOp)) or prod.result.type.rank < 2:
        return None
    if isinstance(prod, LinearOp) and prod.result.type.rank != 2:
        return None  # batch norm's channel dim 1 is the linear's feature dim only at rank 2
    if len(prod.result.uses) != 1 or is_output(fn, prod.result):
        return None
    consts = [known_value(module, v) for v in prod.operands[1:] + bn.operands[1:]]
    if any(c is None for c in consts) or not prod.result.type.dtype.is_float:
        return None
    n_prod = len(prod.operands) - 1
    weight, bias = consts[0], consts[1] if n_prod > 1 else None
    return prod, weight, bias, consts[n_prod:]


def _fold(
    module: Module, fn: Function, bn: Operation, prod: Operation, weight, bias, stats
) -> None:
    mean, var, *affine = (s.double() for s in stats)
    scale = 1.0 / torch.sqrt(var + bn.attrs["eps"])
    if affine:
        scale = scale * affine[0]
    shift = affine[1] if len(affine) > 1 else torch.zeros_like(mean)
    b = bias.double() if bias is not None else torch.zeros_like(mean)
    shape = [-1] + [1] * (weight.dim() - 1)
    new_w = (weight.double() * scale.reshape(shape)).to(weight.dtype)
    new_b = ((b - mean) * scale + shift).to(weight.dtype)
    loc = fuse(prod.loc, bn.loc)
    w_op = _param(module, prod.operands[1], new_w, loc)
    b_op = _param(
        module,
        prod.operands[2] if bias is not None else prod.operands[1],
        new_b,
        loc,
        suffix="bias" if bias is None else None,
    )
    new = type(prod)(
        [prod.operands[0], w_op.result, b_op.result],
        dict(prod.attrs),
        [prod.result.type],
        loc,
        [bn.result.name],
    )
    for op in (w_op, b_op, new):
        insert_before(fn, bn, op)
    replace_value(fn, bn.result, new.result)
    fn.erase(bn)
    fn.erase(prod)


def _param(
    module: Module, like, data: torch.Tensor, loc, suffix: str | None = None
) -> ParamOp:
    base = (
        like.owner.symbol()
        if isinstance(like.owner, ParamOp)
        else (like.name or "const")
    )
    if suffix:
        base = base.rsplit(".", 1)[0] + "." + suffix
    name = fresh_param_name(module, f"{base}.bn_folded")
    module.add_param(name, data.contiguous())
    return ParamOp.of(module, name, loc=loc, result_names=[name.replace(".", "_")])
