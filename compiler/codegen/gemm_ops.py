"""Linear, matmul and convolution on the register-tiled GEMM (gemm.py).

Weights are known at compile time, so they are packed once into the GEMM's panel layout and
passed to the kernel as extra constant buffers:

- linear:  y[R, N] = x[R, K] @ W^T (+ b[N])     B = W^T packed (pack_b), bias over columns
- matmul:  per batch, C = A @ B; B packed when it is a 2-d param, else read at run time
- conv:    per image and group, out[O_g, OH*OW] = W_g[O_g, C_g*kh*kw] @ col[C_g*kh*kw, OH*OW]
           A = W_g packed (pack_a); col is the im2col of the input in scratch memory, or
           the input itself for 1x1 convolutions with stride 1 and no padding; bias per row.
- conv in nhwc (channels last): per image, out[OH*OW, O] = col[OH*OW, kh*kw*C] @ W^T
           B = W^T packed (pack_b); A = im2col rows (or the input itself); bias per column.

``prepare_*`` returns None when the shape is degenerate (a zero dim) and the portable loop
nest in contract.py should be used instead.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import torch
from llvmlite import ir

from ..ir.core import Operation
from ..ir.types import DType
from .gemm import emit_gemm
from .gemm_plan import GemmPlan, pack_a, pack_b, plan_gemm
from .kernel import PTR, Kernel, Prepared, const_data, contiguous_strides
from .loops import for_range, i64, linear_offset, loop_nest
from .parallel import gemm_call
from .pointwise import broadcast_access

__all__ = [
    "prepare_linear",
    "prepare_matmul",
    "prepare_conv",
    "conv_nhwc",
    "conv_shape",
]

NULL = ir.Constant(PTR, None)


def _f32(*types) -> bool:
    return all(t.dtype is DType.f32 for t in types)


def _option_key(value):
    """Epilogue hooks compare by what they compute (``cache_key``) when they can say."""
    key = getattr(value, "cache_key", None)
    return ("epilogue", key) if key is not None else value


def _gemm_fn(k: Kernel, plan: GemmPlan, **options) -> ir.Function:
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


def _offset(k: Kernel, ptr: ir.Value, elements) -> ir.Value:
    off = i64(elements) if isinstance(elements, int) else elements
    return k.b.gep(ptr, [off], inbounds=True, source_etype=ir.FloatType())


def _maker(k: Kernel, **options):
    return lambda plan: _gemm_fn(k, plan, **options)


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
            b_arg = b_ptr if weight is not None else _offset(k, b_ptr, b_off)
            gemm_call(
                k,
                make,
                plan,
                _offset(k, k.out(), c_off),
                _offset(k, k.inp(inputs[0]), a_off),
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
@dataclass(frozen=True)
class _ConvShape:
    n: int
    groups: int
    cg: int  # input channels per group
    og: int  # output channels per group
    ins: tuple[int, ...]
    outs: tuple[int, ...]
    kernel: tuple[int, ...]
    stride: tuple[int, ...]
    padding: tuple[int, ...]
    dilation: tuple[int, ...]

    @property
    def k(self) -> int:
        return self.cg * _prod(self.kernel)

    @property
    def spatial_out(self) -> int:
        return _prod(self.outs)

    @property
    def spatial_in(self) -> int:
        return _prod(self.ins)

    @property
    def direct(self) -> bool:
        """1x1, stride 1, no padding: the input already is the GEMM's B operand."""
        return (
            all(k == 1 for k in self.kernel)
            and all(s == 1 for s in self.stride)
            and all(p == 0 for p in self.padding)
        )


def _prod(xs) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


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
            x_ptr = _offset(k, k.inp(0), k.b.mul(image, i64(cs.cg * cs.spatial_in)))
            if cs.direct:
                col = x_ptr
            else:
                col = k.scratch(0)
                _im2col(k, cs, x_ptr, col)
            c_ptr = _offset(k, k.out(), k.b.mul(image, i64(cs.og * cs.spatial_out)))
            a_ptr = _offset(k, k.extra(0), k.b.mul(g, i64(per_group)))
            bias = _offset(k, k.inp(2), k.b.mul(g, i64(cs.og))) if has_bias else NULL
            gemm_call(
                k, make, plan, c_ptr, a_ptr, col, bias, NULL, threads, bias_per_row=True
            )

    return Prepared(emit, extra=[packed], scratch=scratch)


def conv_shape(attrs, tx, tw, to) -> _ConvShape:
    """The GEMM view of a convolution from its attributes and operand/result types."""
    g = attrs["groups"]
    return _ConvShape(
        tx.shape[0],
        g,
        tw.shape[1],
        tw.shape[0] // g,
        tuple(tx.shape[2:]),
        tuple(to.shape[2:]),
        tuple(tw.shape[2:]),
        tuple(attrs["stride"]),
        tuple(attrs["padding"]),
        tuple(attrs["dilation"]),
    )


def conv_nhwc(
    cs: _ConvShape,
    weight: torch.Tensor,
    threads: int = 1,
    *,
    x: int = 0,
    bias: int | None = None,
    epilogue=None,
    residual: str | None = None,
    residual_input: int = -1,
) -> Prepared:
    """Channels-last 2-D convolution (groups 1): per image
    out[OH*OW, O] = col[OH*OW, kh*kw*C] @ W^T[kh*kw*C, O] + bias[O].

    B is the weight reordered to (kh, kw, C) x O and packed at compile time (pack_b); A is
    the im2col rows of the input (runtime, row-major), or the input itself for a 1x1
    convolution with stride 1 and no padding, where all images form one GEMM of N*H*W
    rows. `x`, `bias`, `residual_input` are kernel input positions; the residual (NHWC,
    like the output) has C's [rows, O] layout.
    """
    rows = cs.spatial_out * (cs.n if cs.direct else 1)
    images = 1 if cs.direct else cs.n
    plan = plan_gemm(rows, cs.og, cs.k, b_packed=True)
    if rows > 8 and cs.og % 64 == 0:
        # 6 x 64 tiles: ResNet-18's layer1 3x3 convs 9% faster than 8 x 32 (docs/GEMM.md)
        plan = dataclasses.replace(plan, mr=6, nr=64, mc=0)
    w = weight.float().permute(0, *range(2, weight.dim()), 1).reshape(cs.og, cs.k)
    packed = pack_b(w.t(), plan)
    scratch = [] if cs.direct else [cs.k * cs.spatial_out * 4]
    opts = {"b_packed": True, "bias": "n" if bias is not None else None}
    opts.update(
        {"epilogue": epilogue, "residual": residual} if epilogue or residual else {}
    )

    def emit(k: Kernel) -> None:
        make = _maker(k, **opts)
        bias_ptr = k.inp(bias) if bias is not None else NULL
        with for_range(k.b, images, name="img") as nb:
            a_ptr = _offset(k, k.inp(x), k.b.mul(nb, i64(cs.cg * cs.spatial_in)))
            if not cs.direct:
                _im2col_nhwc(k, cs, a_ptr, k.scratch(0))
                a_ptr = k.scratch(0)
            c_off = k.b.mul(nb, i64(cs.og * cs.spatial_out))
            res = _offset(k, k.inp(residual_input), c_off) if residual else NULL
            gemm_call(
                k,
                make,
                plan,
                _offset(k, k.out(), c_off),
                a_ptr,
                k.extra(0),
                bias_ptr,
                res,
                threads,
                bias_per_row=False,
            )

    return Prepared(emit, extra=[packed], scratch=scratch)


def _im2col_nhwc(k: Kernel, cs: _ConvShape, x_ptr: ir.Value, col: ir.Value) -> None:
    """col[(oh, ow), (ki, kj, c)] = x[oh*s - p + ki*d, ow*s - p + kj*d, c], zero outside:
    one run of C contiguous floats per output position and kernel offset."""
    b, f32, c_n = k.b, DType.f32, cs.cg
    with loop_nest(b, [*cs.outs, *cs.kernel], name="ok") as (oh, ow, ki, kj):
        ok = ir.Constant(ir.IntType(1), 1)
        pos = []
        for dim, (o, kp) in enumerate(((oh, ki), (ow, kj))):
            q = b.add(
                b.sub(b.mul(o, i64(cs.stride[dim])), i64(cs.padding[dim])),
                b.mul(kp, i64(cs.dilation[dim])),
            )
            inside = b.and_(
                b.icmp_signed(">=", q, i64(0)), b.icmp_signed("<", q, i64(cs.ins[dim]))
            )
            ok = b.and_(ok, inside)
            pos.append(b.select(inside, q, i64(0)))
        cell = b.add(b.mul(oh, i64(cs.outs[1])), ow)
        tap = b.add(b.mul(ki, i64(cs.kernel[1])), kj)
        dst = b.add(b.mul(cell, i64(cs.k)), b.mul(tap, i64(c_n)))
        src = b.mul(b.add(b.mul(pos[0], i64(cs.ins[1])), pos[1]), i64(c_n))
        with b.if_else(ok) as (inside_input, in_padding):
            with inside_input:
                with for_range(b, c_n, name="c") as c:
                    k.store(k.load(x_ptr, b.add(src, c), f32), col, b.add(dst, c), f32)
            with in_padding:
                _fill_zero(k, col, dst, i64(0), i64(c_n))


def _im2col(k: Kernel, cs: _ConvShape, x_ptr: ir.Value, col: ir.Value) -> None:
    """col[(c, *kpos), *opos] = x[c, opos*s - p + kpos*d], zero outside the input.

    The last spatial dim is split into three runs per row (zeros, copy, zeros) whose bounds
    are computed per kernel offset, so the copy loop has no bounds checks.
    """
    b, f32 = k.b, DType.f32
    kernel_dims = list(cs.kernel)
    row_len = cs.outs[-1]
    with loop_nest(b, [cs.cg, *kernel_dims], name="ck") as ck:
        c, kpos = ck[0], ck[1:]
        kidx = c
        for kd, kk in zip(kpos, kernel_dims):
            kidx = b.add(b.mul(kidx, i64(kk)), kd)
        row_base = b.mul(kidx, i64(cs.spatial_out))
        lo, hi = _valid_run(b, kpos[-1], cs, -1)
        with loop_nest(b, list(cs.outs[:-1]), name="oh") as opos:
            in_base, valid = _outer_position(b, cs, c, kpos, opos)
            dst = b.add(row_base, _flat(b, opos, cs.outs[:-1], row_len))
            lo_v = b.select(valid, lo, i64(row_len))
            hi_v = b.select(valid, hi, i64(row_len))
            _fill_zero(k, col, dst, i64(0), lo_v)
            start = b.sub(b.mul(kpos[-1], i64(cs.dilation[-1])), i64(cs.padding[-1]))
            with for_range(b, hi_v, start=lo_v, name="ow") as ow:
                src = b.add(in_base, b.add(b.mul(ow, i64(cs.stride[-1])), start))
                k.store(k.load(x_ptr, src, f32), col, b.add(dst, ow), f32)
            _fill_zero(k, col, dst, hi_v, i64(row_len))


def _valid_run(b: ir.IRBuilder, kpos: ir.Value, cs: _ConvShape, dim: int):
    """[lo, hi): output positions o with 0 <= o*s - p + kpos*d < size."""
    s, p, d, size, n_out = (
        cs.stride[dim],
        cs.padding[dim],
        cs.dilation[dim],
        cs.ins[dim],
        cs.outs[dim],
    )
    shift = b.sub(i64(p), b.mul(kpos, i64(d)))  # o*s >= shift  and  o*s < size + shift
    lo = b.sdiv(b.add(shift, i64(s - 1)), i64(s))  # ceil for shift >= 0
    lo = b.select(b.icmp_signed("<", shift, i64(0)), i64(0), lo)
    hi = b.sdiv(b.add(b.add(shift, i64(size)), i64(s - 1)), i64(s))
    hi = b.select(b.icmp_signed(">", hi, i64(n_out)), i64(n_out), hi)
    hi = b.select(b.icmp_signed("<", hi, lo), lo, hi)
    return lo, hi


def _outer_position(b: ir.IRBuilder, cs: _ConvShape, c, kpos, opos):
    """Input offset of the row start (channel c, outer spatial dims) and whether it is inside."""
    base = b.mul(c, i64(cs.spatial_in))
    valid = ir.Constant(ir.IntType(1), 1)
    inner = 1
    strides = []
    for size in reversed(cs.ins):
        strides.append(inner)
        inner *= size
    strides = list(reversed(strides))
    for dim, (o, kp) in enumerate(zip(opos, kpos[:-1])):
        pos = b.add(
            b.sub(b.mul(o, i64(cs.stride[dim])), i64(cs.padding[dim])),
            b.mul(kp, i64(cs.dilation[dim])),
        )
        inside = b.and_(
            b.icmp_signed(">=", pos, i64(0)), b.icmp_signed("<", pos, i64(cs.ins[dim]))
        )
        valid = b.and_(valid, inside)
        safe = b.select(inside, pos, i64(0))
        base = b.add(base, b.mul(safe, i64(strides[dim])))
    return base, valid


def _flat(b: ir.IRBuilder, idx, dims, inner: int) -> ir.Value:
    """Row-major position of `idx` within `dims`, times `inner`."""
    off = i64(0)
    for i, d in zip(idx, dims):
        off = b.add(b.mul(off, i64(d)), i)
    return b.mul(off, i64(inner))


def _fill_zero(k: Kernel, ptr, base, start, stop) -> None:
    with for_range(k.b, stop, start=start, name="z") as i:
        k.store(ir.Constant(ir.FloatType(), 0.0), ptr, k.b.add(base, i), DType.f32)
