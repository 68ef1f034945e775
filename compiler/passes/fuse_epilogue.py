"""``fuse-epilogue``: activation and residual add into the producing linear/matmul/conv.

The GEMM already adds the bias; this pass moves the elementwise chain that follows a
float32 contraction (ops the GEMM epilogue computes on vectors: relu, clamp, leaky_relu,
neg, abs, and add/sub/mul/div/maximum/minimum with a scalar constant) plus at most one
residual ``add`` (first or last in the chain, of the output's type) into a ``cuvil.fused``
op whose body is the contraction followed by the chain. Every link must be the only use of
the value before it. Each fused chain is one action.

Before::

    %c = cuvil.conv2d(%x, %w, %b) {...} : (...) -> tensor<1x8x6x6xf32>
    %s = cuvil.add(%c, %skip) : (...) -> tensor<1x8x6x6xf32>
    %r = cuvil.relu(%s) : (tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>

After::

    %r = cuvil.fused(%x, %w, %b, %skip) {body = @fused_0} : (...) -> tensor<1x8x6x6xf32>
    func @fused_0(%x: ..., %w: ..., %b: ..., %skip: ...) -> (tensor<1x8x6x6xf32>) {
      %c = cuvil.conv2d(%x, %w, %b) {...}
      %s = cuvil.add(%c, %skip)
      %r = cuvil.relu(%s)
      return %r
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.core import Function, Module, Operation, Trait, Value
from ..ir.ops import ConstantOp, FusedOp, MatmulOp, ParamOp
from ..ir.types import DType
from .base import ModulePass, PassContext, main_functions
from .outline import outline
from .registry import register_pass
from .rewrite import is_output, users

__all__ = ["FuseEpiloguePass"]


@register_pass
@dataclass(frozen=True)
class FuseEpiloguePass(ModulePass):
    """Options: ``residual`` (fuse residual adds), ``max-ops`` (chain length bound)."""

    name = "fuse-epilogue"
    residual: bool = True
    max_ops: int = 8

    def apply(self, module: Module, ctx: PassContext) -> bool:
        changed = False
        for fn in main_functions(module):
            for c in [op for op in fn.ops if _contraction(op)]:
                chain, residual = self._chain(fn, c)
                if not chain:
                    continue
                names = "+".join(op.name.split(".")[1] for op in chain)
                if ctx.allow_action(f"fuse {names} into {c.name}"):
                    inputs = _dedup([*c.operands, *_others(chain, c)])
                    outline(module, fn, [c, *chain], FusedOp, inputs)
                    changed = True
        return changed

    def _chain(
        self, fn: Function, c: Operation
    ) -> tuple[list[Operation], Value | None]:
        chain: list[Operation] = []
        residual = None
        cur = c.result
        while len(chain) < self.max_ops:
            nxt = users(cur)
            if len(nxt) != 1 or len(cur.uses) != 1 or is_output(fn, cur):
                break
            op = nxt[0]
            if not op.has_trait(Trait.EPILOGUE) or op.result.type != c.result.type:
                break
            others = [v for v in op.operands if v is not cur]
            if all(_scalar_constant(v) for v in others):
                chain.append(op)
            elif self.residual and _is_residual(op, others, c) and residual is None:
                chain.append(op)
                residual = others[0]
                if len(chain) > 1:
                    break  # a residual add must be first or last
            else:
                break
            cur = op.result
        return chain, residual


def _contraction(op: Operation) -> bool:
    if not op.has_trait(Trait.CONTRACTION) or not op.result.type.is_static:
        return False
    if any(v.type.dtype is not DType.f32 or v.type.numel() == 0 for v in op.operands):
        return False
    # linear and conv weights are packed at compile time: they must be constants
    return isinstance(op, MatmulOp) or isinstance(
        op.operands[1].owner, (ParamOp, ConstantOp)
    )


def _scalar_constant(v: Value) -> bool:
    return (
        isinstance(v.owner, ConstantOp)
        and v.type.numel() == 1
        and v.type.dtype.is_float
    )


def _is_residual(op: Operation, others: list[Value], c: Operation) -> bool:
    return (
        op.name == "cuvil.add" and len(others) == 1 and others[0].type == c.result.type
    )


def _others(chain: list[Operation], c: Operation) -> list[Value]:
    inside = {id(c.result)} | {id(op.result) for op in chain}
    return [v for op in chain for v in op.operands if id(v) not in inside]


def _dedup(values: list[Value]) -> list[Value]:
    seen: dict[int, Value] = {}
    for v in values:
        seen.setdefault(id(v), v)
    return list(seen.values())
