"""Channels-last 2-D convolution as a kernel: the direct implicit-GEMM conv (conv.py).

``conv_direct`` prepares one convolution (groups 1, NHWC activations): the weight packed at
compile time in the kernel's panel layout (``pack_conv_weight``), the plan (conv_plan.py,
tuned per shape by gemm_tune when a measurement is cached), a scratch image when the plan
copies the input into a zero border first, and the emitter: the (optional) border copy,
then the work items over the thread pool (parallel.py).

Convolutions of equal plan and epilogue share one function per module
(``cuvil_conv<i>_<h>x<w>x<c>_<o>k<kh>s<s>``), like GEMMs do.
"""

from __future__ import annotations

import torch
from llvmlite import ir

from .conv import declare_conv, emit_conv_body, emit_pad
from .conv_plan import ConvPlan, pack_conv_weight, plan_conv
from .depthwise import (
    emit_depthwise,
    is_depthwise,
    pack_depthwise_weight,
    plan_depthwise,
)
from .host import host_info
from .im2col import ConvShape
from .kernel import PTR, Kernel, Prepared, defer
from .parallel import parallel_for

__all__ = ["conv_direct", "conv_fn"]

NULL = ir.Constant(PTR, None)


def _option_key(value):
    key = getattr(value, "cache_key", None)
    return ("epilogue", key) if key is not None else value


def _label(plan: ConvPlan) -> str:
    cs = plan.cs
    (h, w), (kh, _), (s, _) = cs.ins, cs.kernel, cs.stride
    return f"{h}x{w}x{cs.cg}_{cs.og}k{kh}s{s}"


def conv_fn(k: Kernel, plan: ConvPlan, **options) -> ir.Function:
    """The conv function of (plan, options) in this module, one per plan, bias and
    epilogue: a convolution with a residual added before the epilogue and one without
    share it (the residual pointer null for the second: ResNet's two convolutions per
    block), any other residual placement has its own. Its body is emitted once every
    kernel has asked for it (kernel.defer)."""
    module = k.fn.module
    cache = module.__dict__.setdefault("_cuvil_convs", {})
    residual = options.pop("residual", None)
    rest = tuple(sorted((n, _option_key(v)) for n, v in options.items()))
    key = (plan, rest, "post" if residual == "post" else "pre")
    if key not in cache:
        name = f"cuvil_conv{len(cache)}_{_label(plan)}"
        cache[key] = shared = _SharedConv(declare_conv(module, name), plan, options)
        defer(module, shared.emit)
    cache[key].asked.add(residual)
    return cache[key].fn


class _SharedConv:
    """A conv function and the residual placements its callers asked for."""

    def __init__(self, fn: ir.Function, plan: ConvPlan, options: dict) -> None:
        self.fn, self.plan, self.options = fn, plan, options
        self.asked: set[str | None] = set()

    def emit(self) -> None:
        placed = sorted(r for r in self.asked if r is not None)
        residual = placed[0] if placed else None
        optional = residual is not None and None in self.asked
        emit_conv_body(
            self.fn,
            self.plan,
            residual=residual,
            optional_residual=optional,
            **self.options,
        )


def pad_fn(k: Kernel, plan: ConvPlan) -> ir.Function:
    module = k.fn.module
    cache = module.__dict__.setdefault("_cuvil_pads", {})
    key = (plan.cs.n, plan.cs.ins, plan.cs.cg, plan.cs.padding)
    if key not in cache:
        cache[key] = emit_pad(module, f"cuvil_pad{len(cache)}_{_label(plan)}", plan)
    return cache[key]


def conv_direct(
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
    """out[N, OH, OW, O] = conv(x NHWC, weight) (+ bias[O]) (+ residual) -> epilogue;
    groups 1 (conv.py) or depthwise (depthwise.py).

    `x`, `bias`, `residual_input` are kernel input positions; the residual is NHWC like
    the output ("pre": added before the epilogue, "post": after)."""
    options = {"bias": bias is not None}
    if epilogue is not None or residual is not None:
        options.update(epilogue=epilogue, residual=residual)
    if is_depthwise(cs):
        return _depthwise(
            cs, weight, threads, x, bias, residual_input if residual else None, options
        )
    plan = plan_conv(cs, threads)
    packed = pack_conv_weight(weight, plan)
    scratch = [plan.scratch_bytes] if plan.copies_input else []

    def emit(k: Kernel) -> None:
        fn = conv_fn(k, plan, **options)
        xpad = NULL
        if plan.copies_input:
            xpad = k.scratch(0)
            k.b.call(pad_fn(k, plan), [xpad, k.inp(x)])
        elif plan.padded:  # no border to add: the bordered form reads x itself
            xpad = k.inp(x)
        args = [
            k.out(),
            k.inp(x),
            k.extra(0),
            k.inp(bias) if bias is not None else NULL,
            k.inp(residual_input) if residual else NULL,
            xpad,
        ]
        parallel_for(k, fn, args, plan.items, threads, plan.flops)

    return Prepared(emit, extra=[packed], scratch=scratch)


def _depthwise(cs, weight, threads, x, bias, residual_input, options) -> Prepared:
    """groups == C == O: the channel-vector kernel of depthwise.py, rows over threads."""
    plan = plan_depthwise(cs, host_info().vector_floats)

    def emit(k: Kernel) -> None:
        module = k.fn.module
        cache = module.__dict__.setdefault("_cuvil_depthwise", {})
        key = (plan, tuple(sorted((n, _option_key(v)) for n, v in options.items())))
        if key not in cache:
            name = f"cuvil_dwconv{len(cache)}_{_label_dw(cs)}"
            cache[key] = emit_depthwise(module, name, plan, **options)
        args = [
            k.out(),
            k.inp(x),
            k.extra(0),
            k.inp(bias) if bias is not None else NULL,
            k.inp(residual_input) if residual_input is not None else NULL,
            NULL,
        ]
        parallel_for(k, cache[key], args, plan.items, threads, plan.flops * 8)

    return Prepared(emit, extra=[pack_depthwise_weight(weight)])


def _label_dw(cs: ConvShape) -> str:
    (h, w), (kh, _), (s, _) = cs.ins, cs.kernel, cs.stride
    return f"{h}x{w}x{cs.groups}k{kh}s{s}"
