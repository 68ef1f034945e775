"""What an effect computes: as IR ops (lowering and pass faults) and as an in-place LLVM
loop over a kernel's output (kernel faults)."""

from __future__ import annotations

import torch
from llvmlite import ir

from cuvil.codegen.kernel import Kernel, physical_strides
from cuvil.codegen.pointwise import Access, emit_pointwise
from cuvil.codegen.scalar import llvm_type
from cuvil.errors import CodegenError
from cuvil.ir import ops
from cuvil.ir.core import Operation, Value
from cuvil.ir.location import AnyLoc
from cuvil.ir.types import TensorType

__all__ = [
    "SCALE",
    "SHIFT",
    "NEGATIVE_SLOPE",
    "effect_ops",
    "node_loc",
    "emit_effect",
    "emit_twice",
]

SCALE, SHIFT, NEGATIVE_SLOPE = 1.0625, 0.5, 2.0  # all exact in f16/bf16 too
INT32_MAX = 2**31 - 1
ACCUMULATE_BITS = 8
# significand bits (with the implicit one) by dtype: y + y * 2**-bits is y one ulp
# further from zero (y * 2**-bits is half an ulp or more, less than one, and exact)
_BITS = {"f64": 53, "f32": 24, "f16": 11, "bf16": 8}


def ulp_factor(dtype) -> float:
    """2**-bits for an IR dtype (the `ulp` effect's y * 2**-bits)."""
    return 2.0 ** -_BITS.get(dtype.value, 24)


def node_loc(loc: AnyLoc, node: str) -> AnyLoc:
    """The part of `loc` that names `node` (a fused op's member), else `loc`."""
    return next((p for p in loc.parts if p.node == node), loc)


def _constant(x: Value, value: float, loc: AnyLoc) -> Operation:
    return ops.ConstantOp.build(
        value=torch.tensor(value, dtype=x.type.dtype.torch), loc=loc
    )


def _binary(name: str, a: Value, b: Value, loc: AnyLoc, result: str | None = None):
    return ops.BINARY_OPS[f"cuvil.{name}"].build(a, b, loc=loc, name=result)


def effect_ops(
    effect: str, x: Value, loc: AnyLoc, name: str, param: float | None = None
) -> list[Operation]:
    """IR ops computing effect(x) (`param`: scale's factor, accumulate's bits); the
    last one's result is named `name`."""
    if effect == "negative":  # x >= 0 ? x : 2x, as one op (a valid GEMM epilogue too)
        return [
            ops.LeakyReluOp.build(x, loc=loc, name=name, negative_slope=NEGATIVE_SLOPE)
        ]
    if effect == "ulp":  # x + x * 2**-bits
        c = _constant(x, ulp_factor(x.type.dtype), loc)
        half = _binary("mul", x, c.result, loc)
        return [c, half, _binary("add", x, half.result, loc, name)]
    if effect == "accumulate":
        return _accumulate_ops(x, loc, name, int(param or ACCUMULATE_BITS))
    factor = (param or SCALE) if effect == "scale" else SHIFT
    c = _constant(x, factor, loc)
    return [c, _binary("mul" if effect == "scale" else "add", x, c.result, loc, name)]


def _accumulate_ops(x: Value, loc: AnyLoc, name: str, bits: int) -> list[Operation]:
    """(x + M) - M with M = 2**bits * max|x| (over the whole tensor)."""
    dims = tuple(range(len(x.type.shape)))
    mag = ops.UNARY_OPS["cuvil.abs"].build(x, loc=loc)
    top = ops.REDUCE_OPS["cuvil.amax"].build(
        mag.result, loc=loc, dims=dims, keepdim=True
    )
    c = _constant(x, 2.0**bits, loc)
    big = _binary("mul", top.result, c.result, loc)
    summed = _binary("add", x, big.result, loc)
    return [
        mag,
        top,
        c,
        big,
        summed,
        _binary("sub", summed.result, big.result, loc, name),
    ]


def _overflow_flag(k: Kernel) -> ir.Value:
    """``k + 1 > k`` for k = INT_MAX loaded from a mutable global: false when computed
    (the add wraps), but ``add nsw`` makes overflow UB, so InstSimplify folds the compare
    to true (in EarlyCSE, the 8th pass of LLVM's O1-O3 pipelines; InstCombine would too).
    O0 runs no passes and opt-bisect-limit=0 skips them: no fold."""
    b, i32 = k.b, ir.IntType(32)
    g = ir.GlobalVariable(
        k.fn.module, i32, name=k.fn.module.get_unique_name("cuvil_fault_int_max")
    )
    g.linkage, g.initializer = "internal", ir.Constant(i32, INT32_MAX)
    value = b.load(g, typ=i32)
    return b.icmp_signed(">", b.add(value, ir.Constant(i32, 1), flags=["nsw"]), value)


def emit_twice(k: Kernel) -> None:
    """At the kernel's end, once per call, the kernel calls itself with its own
    arguments: the same work again, the same output (a kernel that writes its output
    from its inputs; an in-place one would apply itself twice, so it is refused). A
    mutable global flag stops the recursion; the call keeps LLVM from inlining it."""
    if k.inplace is not None:
        raise CodegenError(
            f"fault twice: kernel {k.fn.name} computes its output in place "
            "(running it twice would change the value)",
            hint="give the twice effect a node whose kernel is not in place "
            "(a linear, matmul or convolution)",
        )
    b, i1 = k.b, ir.IntType(1)
    flag = ir.GlobalVariable(
        k.fn.module, i1, name=k.fn.module.get_unique_name("cuvil_fault_again")
    )
    flag.linkage, flag.initializer = "internal", ir.Constant(i1, 0)
    with b.if_then(b.not_(b.load(flag, typ=i1))):
        b.store(ir.Constant(i1, 1), flag)
        b.call(k.fn, list(k.fn.args))
        b.store(ir.Constant(i1, 0), flag)


def emit_effect(
    k: Kernel, effect: str, t: TensorType, param: float | None = None
) -> None:
    """``out = effect(out)`` in place over the kernel's output buffer, after its loops
    (``twice``: the kernel runs again, `emit_twice`; ``accumulate``: a first pass
    finds max|out|)."""
    if effect == "twice":
        emit_twice(k)
        return
    bigger = _overflow_flag(k) if effect == "overflow" else None
    acc = Access(0, physical_strides(t))
    out = (k.out(), acc, t.dtype)
    top = _max_abs(k, t, out) if effect == "accumulate" else None

    def expr(b: ir.IRBuilder, xs: list[ir.Value]) -> ir.Value:
        x = xs[0]

        def c(v: float) -> ir.Constant:
            return ir.Constant(x.type, v)

        if effect == "scale":
            return b.fmul(x, c(param or SCALE))
        if effect == "shift":
            return b.fadd(x, c(SHIFT))
        if effect == "negative":
            return b.select(
                b.fcmp_ordered("<", x, c(0.0)), b.fmul(x, c(NEGATIVE_SLOPE)), x
            )
        if effect == "ulp":
            return b.fadd(x, b.fmul(x, c(ulp_factor(t.dtype))))
        if effect == "accumulate":
            m = b.fmul(b.load(top, typ=x.type), c(2.0 ** int(param or ACCUMULATE_BITS)))
            return b.fsub(b.fadd(x, m), m)
        return b.fadd(x, b.select(bigger, c(1.0), c(0.0)))

    emit_pointwise(k, list(t.shape), out, [out], expr)


def _max_abs(k: Kernel, t: TensorType, out) -> ir.Value:
    """A stack slot holding max |out| after a first pass over the output (which stores
    every element back unchanged)."""
    reg = llvm_type(t.dtype)
    slot = k.alloca(reg, ir.Constant(reg, 0.0), "fault_max")

    def expr(b: ir.IRBuilder, xs: list[ir.Value]) -> ir.Value:
        x = xs[0]
        mag = b.select(b.fcmp_ordered("<", x, ir.Constant(x.type, 0.0)), b.fneg(x), x)
        best = b.load(slot, typ=x.type)
        b.store(b.select(b.fcmp_ordered(">", mag, best), mag, best), slot)
        return x

    emit_pointwise(k, list(t.shape), out, [out], expr)
    return slot
