"""The int8 depthwise convolution (codegen/qdepthwise.py: cuvil.qconv2d, groups = C = O).

Exact: the int32 accumulators (``out_dtype = i32``) equal an int64 computation written
here from torch's unfold (not the op's reference), and the requantized u8 / float32
results equal the op's reference bit for bit; both input layouts (nhwc, as fold-qdq
stores a quantize feeding a qconv2d, and contiguous), padding, stride, dilation,
channel counts off the 16-lane vector, 1 and 2 threads. A MobileNet-style block under
``quantize="int8"`` gets the kernel (no float fallback) and stays within 30 dB.
"""

from __future__ import annotations

import re

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

import cuvil
from cuvil.ir import DType, Function, Module, TensorType
from cuvil.ir import ops as O
from cuvil.ir.interpreter import interpret
from cuvil.ir.ops.quant import f32
from cuvil.ir.verifier import verify
from cuvil.options import CompileOptions
from cuvil.pipeline import compile_module

ZP, SCALE = 117, f32(0.04)


def _module(shape, kernel, stride, pad, dil, layout, out):
    n, c, h, w = shape
    m = Module("dw")
    fn = m.add_function(Function("forward"))
    x = fn.add_arg(TensorType(shape, DType.f32), "x")
    g = torch.Generator().manual_seed(c * 100 + h)
    m.add_param(
        "w", torch.randint(-127, 128, (c, 1, *kernel), generator=g).to(torch.int8)
    )
    m.add_param("b", torch.randn(c, generator=g))
    q = fn.append(
        O.QuantizeOp.build(
            x, scale=(SCALE,), zero_point=(ZP,), dtype=DType.u8, layout=layout
        )
    )
    attrs = dict(
        x_scale=SCALE,
        x_zero_point=ZP,
        w_scale=tuple(f32(0.003 * (i + 1)) for i in range(c)),
        stride=stride,
        padding=pad,
        dilation=dil,
        groups=c,
    )
    if out == "u8":
        attrs.update(out_dtype=DType.u8, out_scale=f32(0.07), out_zero_point=9)
        attrs.update(clamp_min=0.0)
    elif out == "i32":
        attrs.update(out_dtype=DType.i32)
    wv, bv = (fn.append(O.ParamOp.of(m, name)).result for name in ("w", "b"))
    operands = [q.result, wv] + ([] if out == "i32" else [bv])
    y = fn.append(O.QConv2dOp.build(*operands, **attrs))
    q_out = q.result
    if layout == "nhwc":  # results leave a function contiguous
        q_out = fn.append(O.RelayoutOp.build(q.result, layout="contiguous")).result
    fn.set_outputs([q_out, y.result] if out == "i32" else [y.result])
    return verify(m)


def _int_conv(q: torch.Tensor, w: torch.Tensor, stride, pad, dil) -> torch.Tensor:
    """sum over taps of (q - ZP) * w per channel, in int64, padding contributing 0."""
    n, c, h, wd = q.shape
    kh, kw = w.shape[2:]
    xd = F.pad(q.long() - ZP, (pad[1], pad[1], pad[0], pad[0]))
    oh = (h + 2 * pad[0] - dil[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * pad[1] - dil[1] * (kw - 1) - 1) // stride[1] + 1
    acc = torch.zeros(n, c, oh, ow, dtype=torch.int64)
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dil[0], j * dil[1]
            win = xd[:, :, r0 : r0 + stride[0] * oh : stride[0]]
            win = win[:, :, :, c0 : c0 + stride[1] * ow : stride[1]]
            acc += win * w[:, 0, i, j].long().view(1, c, 1, 1)
    return acc


def _check(case, threads: int = 1) -> str:
    """Checks every result; returns the LLVM IR of the last build."""
    shape, kernel, stride, pad, dil, layout = case
    torch.manual_seed(sum(shape))
    x = torch.randn(*shape) * 2
    opts = CompileOptions(num_threads=threads)
    m = _module(shape, kernel, stride, pad, dil, layout, "i32")
    q, acc = compile_module(m, opts)(x)
    w = m.param_data["w"]
    assert torch.equal(acc.long(), _int_conv(q, w, stride, pad, dil))
    for out in ("u8", "f32"):
        m = _module(shape, kernel, stride, pad, dil, layout, out)
        compiled = compile_module(m, opts)
        assert torch.equal(compiled(x), interpret(m, [x])[0]), out
    return compiled.llvm_ir()


_EDGES = [  # channels off 16, stride 2, asymmetric padding, dilation, both layouts
    ((2, 19, 9, 7), (3, 3), (2, 1), (1, 0), (1, 1), "nhwc"),
    ((1, 33, 8, 8), (5, 5), (1, 1), (2, 2), (1, 1), "contiguous"),
]


@pytest.mark.parametrize("case", _EDGES, ids=["c19-s2", "c33-k5"])
def test_depthwise_int8_is_exact_on_edge_shapes(case):
    _check(case)


def test_depthwise_int8_split_over_threads_is_exact():
    """Output rows over 2 threads (the pool's thunk of the row function is called),
    dilation 2 with padding 2."""
    text = _check(((1, 40, 30, 30), (3, 3), (1, 1), (2, 2), (2, 2), "nhwc"), threads=2)
    assert re.search(r"define [^@]*@\"?cuvil_qdw\w*_task", text)


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(
    c=st.integers(2, 40),
    hw=st.tuples(st.integers(3, 12), st.integers(3, 12)),
    kernel=st.sampled_from([(1, 1), (3, 3), (5, 5), (3, 1)]),
    stride=st.sampled_from([(1, 1), (2, 2), (1, 2)]),
    pad=st.sampled_from([(0, 0), (1, 1), (2, 1)]),
    dil=st.sampled_from([(1, 1), (2, 1)]),
    layout=st.sampled_from(["nhwc", "contiguous"]),
)
def test_depthwise_int8_is_exact_on_drawn_shapes(
    c, hw, kernel, stride, pad, dil, layout
):
    eff = [dil[i] * (kernel[i] - 1) + 1 for i in range(2)]
    if any(hw[i] + 2 * pad[i] < eff[i] for i in range(2)):
        return  # no output position
    _check(((1, c, *hw), kernel, stride, pad, dil, layout))


class _MobileBlock(torch.nn.Module):
    """MobileNetV2's inverted residual core: expand 1x1, depthwise 3x3, project 1x1."""

    def __init__(self, c: int = 8, e: int = 24) -> None:
        super().__init__()
        self.expand = torch.nn.Conv2d(c, e, 1)
        self.dw = torch.nn.Conv2d(e, e, 3, stride=2, padding=1, groups=e)
        self.project = torch.nn.Conv2d(e, c, 1)

    def forward(self, x):
        y = torch.clamp(self.expand(x), 0, 6)
        return self.project(torch.clamp(self.dw(y), 0, 6))


def test_a_mobilenet_block_runs_its_depthwise_layer_in_int8():
    torch.manual_seed(0)
    model, x = _MobileBlock().eval(), torch.randn(1, 8, 14, 14)
    calib = [torch.randn(1, 8, 14, 14) for _ in range(3)]
    compiled = cuvil.compile(model, [x], quantize="int8", calibration_data=calib)
    status = {ly.name: ly.status for ly in compiled.quantization.layers}
    assert status == {"expand": "int8", "dw": "int8", "project": "int8"}
    ops = [k.op_name for k in compiled.program.kernels]
    assert ops.count("cuvil.qconv2d") == 3
    ref = model(x).detach()
    err = compiled(x) - ref
    assert 10 * torch.log10(ref.pow(2).sum() / err.pow(2).sum()) > 30
