"""Linear, matmul and convolution on the register-tiled GEMM (gemm.py).

Weights are known at compile time, so they are packed once into the GEMM's panel layout and
passed to the kernel as extra constant buffers:

- linear:  y[R, N] = x[R, K] @ W^T (+ b[N])     B = W^T packed (pack_b), bias over columns
- matmul:  per batch, C = A @ B; B packed when it is a 2-d param, else read at run time
- conv:    per image and group, out[O_g, OH*OW] = W_g[O_g, C_g*kh*kw] @ col[C_g*kh*kw, OH*OW]
           A = W_g packed (pack_a); col is the im2col of the input in scratch memory, or
           the input itself for 1x1 convolutions with stride 1 and no padding; bias per row.
- conv in nhwc (channels last, groups 1): no GEMM call but the direct implicit-GEMM
           kernel of conv_ops.py / conv.py, which reads input patches in place.

``prepare_*`` returns None when the shape is degenerate (a zero dim) and the portable loop
nest in contract.py should be used instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from llvmlite import ir

from ..ir.core import Operation
from ..ir.types import DType
from .conv_ops import conv_direct
from .gemm import emit_gemm
from .gemm_plan import GemmPlan, pack_a, pack_b, plan_gemm
from .im2col import ConvShape, conv_shape, im2col
from .kernel import PTR, Kernel, Prepared, const_data, contiguous_strides
from .loops import i64, linear_offset, loop_nest
from .parallel import gemm_call
from .pointwise import broadcast_access

__all__ = [
    "prepare_linear",
    "prepare_matmul",
    "prepare_conv",
    "conv_nhwc",
    "linear_gemm",
    "matmul_gemm",
    "Tail",
    "gemm_fn",
    "float_ptr",
    "NULL",
]

NULL = ir.Constant(PTR, None)


def _f32(*types) -> bool:
    return all(t.dtype is DType.f32 for t in types)


def _option_key(value):
    """Epilogue hooks compare by what they compute (``cache_key``) when they can say."""
    key = getattr(value, "cache_key", None)
    return ("epilogue", key) if key is not None else value


def gemm_fn(k: Kernel, plan: GemmPlan, **options) -> ir.Function:
    """One GEMM function per (plan, options) in a module: convolutions of equal shape share
    it (ResNet-18 has 20 convolutions but 11 shapes), which halves the code LLVM compiles."""
    module = k.fn.module
    cache = module.__dict__.setdefault("_cuvil_gemms", {})
    key = (plan, tuple(sorted((name, _option_key(v)) for name, v in options.items())))
    if key not in cache:
        cache[key] = emit_gemm(
            module,
            f"cuvil_gemm{len(cache)}_{plan.m}x{plan.n}x{plan.k}",
            plan,
            **options,
        )
    return cache[key]


def float_ptr(k: Kernel, ptr: ir.Value, elements) -> ir.Value:
    """`ptr` advanced by `elements` floats (an int or an i64 value)."""
    off = i64(elements) if isinstance(elements, int) else elements
    return k.b.gep(ptr, [off], inbounds=True, source_etype=ir.FloatType())


def _maker(k: Kernel, **options):
    return lambda plan: gemm_fn(k, plan, **options)


# ---- linear and matmul -------------------------------------------------------------------------
@dataclass(frozen=True)
class Tail:
    """What a fused epilogue adds to a GEMM: the vector hook, where a residual is added
    ("pre"/"post"/None) and how to point at it (``ptr(kernel, c_offset=None)``)."""

    hook: Callable | None = None
    residual: str | None = None
    ptr: Callable = lambda k, offset=None: NULL


NO_TAIL = Tail()


def linear_gemm(
    x, w, weight: torch.Tensor | None, inputs: tuple[int, ...], tail: Tail, threads: int
) -> Prepared | None:
    """y = x @ W^T (+ bias) (+ tail) with W packed at compile time; `inputs` are the kernel
    operand positions of x, W and bias."""
    k_dim, n = w.shape[1], w.shape[0]
    m = x.numel() // k_dim if k_dim else 0
    if weight is None or 0 in (m, n, k_dim):
        return None
    plan = plan_gemm(m, n, k_dim, b_packed=True)
    packed = pack_b(weight.t().float(), plan)
    has_bias = len(inputs) > 2

    def emit(k: Kernel) -> None:
        make = _maker(
            k,
            b_packed=True,
            bias="n" if has_bias else None,
            epilogue=tail.hook,
            residual=tail.residual,
        )
        gemm_call(
            k,
            make,
            plan,
            k.out(),
            k.inp(inputs[0]),
            k.extra(0),
            k.inp(inputs[2]) if has_bias else NULL,
            tail.ptr(k),
            threads,
            bias_per_row=False,
            b_packed=True,
        )

    return Prepared(emit, extra=[packed])


def matmul_gemm(
    ta,
    tb,
    to,
    weight: torch.Tensor | None,
    inputs: tuple[int, ...],
    tail: Tail,
    threads: int,
) -> Prepared | None:
    """C = A @ B per (broadcast) batch (+ tail); B packed when it is a 2-d constant."""
    m, k_dim, n = ta.shape[-2], ta.shape[-1], tb.shape[-1]
    if 0 in (m, n, k_dim) or to.numel() == 0:
        return None
    weight = weight if tb.rank == 2 else None
    plan = plan_gemm(m, n, k_dim, b_packed=weight is not None)
    extra = [pack_b(weight.float(), plan)] if weight is not None else []
    batch = list(to.shape[:-2])
    sa = broadcast_access(list(ta.shape[:-2]), batch).strides
    sb = broadcast_access(list(tb.shape[:-2]), batch).strides

    def emit(k: Kernel) -> None:
        make = _maker(
            k, b_packed=weight is not None, epilogue=tail.hook, residual=tail.residual
        )
        b_ptr = k.extra(0) if weight is not None else k.inp(inputs[1])
        with loop_nest(k.b, batch, name="bt") as idx:
            a_off = k.b.mul(linear_offset(k.b, idx, sa), i64(m * k_dim))
            b_off = k.b.mul(linear_offset(k.b, idx, sb), i64(k_dim * n))
            c_off = k.b.mul(
                linear_offset(k.b, idx, contiguous_strides(batch)), i64(m * n)
            )
            b_arg = b_ptr if weight is not None else float_ptr(k, b_ptr, b_off)
            gemm_call(
                k,
                make,
                plan,
                float_ptr(k, k.out(), c_off),
                float_ptr(k, k.inp(inputs[0]), a_off),
                b_arg,
                NULL,
                tail.ptr(k, c_off),
                threads,
                bias_per_row=False,
            )

    return Prepared(emit, extra=extra)


def prepare_linear(op: Operation, param_data, threads: int = 1) -> Prepared | None:
    x, w = op.operand_types[:2]
    if not _f32(x, w):
        return None
    weight = const_data(op.operands[1], param_data)
    inputs = tuple(range(len(op.operands)))
    return linear_gemm(x, w, weight, inputs, NO_TAIL, threads)


def prepare_matmul(op: Operation, param_data, threads: int = 1) -> Prepared | None:
    ta, tb = op.operand_types
    if not _f32(ta, tb):
        return None
    weight = const_data(op.operands[1], param_data)
    return matmul_gemm(ta, tb, op.results[0].type, weight, (0, 1), NO_TAIL, threads)


# ---- convolution -------------------------------------------------------------------------------
def prepare_conv(op: Operation, param_data, threads: int = 1) -> Prepared | None:
    tx, tw = op.operand_types[:2]
    weight = const_data(op.operands[1], param_data)
    to = op.results[0].type
    if weight is None or not _f32(tx, tw) or to.numel() == 0 or tx.numel() == 0:
        return None
    cs = conv_shape(op.attrs, tx, tw, to)
    if to.layout == "nhwc":
        return conv_nhwc(cs, weight, threads, bias=2 if len(op.operands) > 2 else None)
    plan = plan_gemm(cs.og, cs.spatial_out, cs.k, b_packed=False)
    w = weight.float().reshape(cs.groups, cs.og, cs.k)
    packed = torch.cat([pack_a(w[g], plan).reshape(-1) for g in range(cs.groups)])
    per_group = packed.numel() // cs.groups
    scratch = [] if cs.direct else [cs.k * cs.spatial_out * 4]
    has_bias = len(op.operands) > 2

    def emit(k: Kernel) -> None:
        make = _maker(k, b_packed=False, a_packed=True, bias="m" if has_bias else None)
        with loop_nest(k.b, [cs.n, cs.groups], name="ng") as (nb, g):
            image = k.b.add(
                k.b.mul(nb, i64(cs.groups)), g
            )  # (n, g) -> input channel block
            x_ptr = float_ptr(k, k.inp(0), k.b.mul(image, i64(cs.cg * cs.spatial_in)))
            if cs.direct:
                col = x_ptr
            else:
                col = k.scratch(0)
                im2col(k, cs, x_ptr, col)
            c_ptr = float_ptr(k, k.out(), k.b.mul(image, i64(cs.og * cs.spatial_out)))
            a_ptr = float_ptr(k, k.extra(0), k.b.mul(g, i64(per_group)))
            bias = float_ptr(k, k.inp(2), k.b.mul(g, i64(cs.og))) if has_bias else NULL
            gemm_call(
                k, make, plan, c_ptr, a_ptr, col, bias, NULL, threads, bias_per_row=True
            )

    return Prepared(emit, extra=[packed], scratch=scratch)


def conv_nhwc(
    cs: ConvShape,
    weight: torch.Tensor,
    threads: int = 1,
    *,
    x: int = 0,
    bias: int | None = None,
    epilogue=None,
    residual: str | None = None,
    residual_input: int = -1,
) -> Prepared:
    """Channels-last 2-D convolution (groups 1): the direct implicit-GEMM kernel of
    conv_ops (no im2col buffer). `x`, `bias`, `residual_input` are kernel input
    positions; the residual (NHWC, like the output) is added "pre"/"post" the epilogue."""
    return conv_direct(
        cs,
        weight,
        threads,
        x=x,
        bias=bias,
        epilogue=epilogue,
        residual=residual,
        residual_input=residual_input,
    )
