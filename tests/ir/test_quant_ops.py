"""The quantization ops (ir/ops/quant*.py): their meaning against torch's own quantization
ops, the verifier's rules, and the .cuvilir round trip (print(parse(text)) == text)."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from cuvil.errors import VerifyError
from cuvil.ir import DType, Function, Module, TensorType, Value
from cuvil.ir import ops as O
from cuvil.ir.ops.quant import dynamic_qparams, f32
from cuvil.ir.parser import parse_module
from cuvil.ir.verifier import verify

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import torch.ao.quantization.fx._decomposed  # noqa: F401

QD = torch.ops.quantized_decomposed
_scales = st.floats(1e-4, 10.0).map(f32)


def val(*shape, dtype=DType.f32, layout="contiguous") -> Value:
    return Value(TensorType(tuple(shape), dtype, layout), "v")


# ---- meaning -----------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(scale=_scales, zp=st.integers(0, 255), seed=st.integers(0, 2**16))
def test_quantize_matches_torch_fake_quant_and_pt2e_ops_exactly(scale, zp, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(257, generator=g) * 100 * scale
    x[:64] = (torch.randint(-200, 200, (64,), generator=g) + 0.5) * scale  # ties
    op = O.QuantizeOp.build(val(257), scale=(scale,), zero_point=(zp,), dtype=DType.u8)
    q = op.reference(x)
    assert torch.equal(q, QD.quantize_per_tensor(x, scale, zp, 0, 255, torch.uint8))
    dq = O.DequantizeOp.build(op.result, scale=(scale,), zero_point=(zp,))
    fake = torch.fake_quantize_per_tensor_affine(x, scale, zp, 0, 255)
    assert torch.equal(dq.reference(q), fake)


def test_per_channel_quantize_matches_torch_fake_quant():
    torch.manual_seed(1)
    w = torch.randn(6, 5, 3)
    scales = [f32(0.01 * (i + 1)) for i in range(5)]
    q = O.QuantizeOp.build(
        val(6, 5, 3),
        scale=tuple(scales),
        zero_point=(0,) * 5,
        axis=1,
        dtype=DType.i8,
        quant_min=-127,
        quant_max=127,
    )
    dq = O.DequantizeOp.build(
        q.result, scale=tuple(scales), zero_point=(0,) * 5, axis=1
    )
    fake = torch.fake_quantize_per_channel_affine(
        w, torch.tensor(scales), torch.zeros(5, dtype=torch.int32), 1, -127, 127
    )
    assert torch.equal(dq.reference(q.reference(w)), fake)


def _qlinear_case(out_dtype=None, **extra):
    torch.manual_seed(2)
    x = torch.randint(0, 256, (3, 40), dtype=torch.uint8)
    w = torch.randint(-127, 128, (7, 40), dtype=torch.int8)
    bias = torch.randn(7)
    ws = tuple(f32(0.002 * (i + 1)) for i in range(7))
    attrs = dict(x_scale=f32(0.05), x_zero_point=100, w_scale=ws, **extra)
    if out_dtype is not None:
        attrs.update(out_dtype=out_dtype)
    bias_v = [] if out_dtype is DType.i32 else [val(7)]
    op = O.QLinearOp.build(
        val(3, 40, dtype=DType.u8), val(7, 40, dtype=DType.i8), *bias_v, **attrs
    )
    return op, x, w, bias, ws


def test_qlinear_float_result_is_the_fake_quant_linear():
    op, x, w, bias, ws = _qlinear_case()
    xf = (x.float() - 100) * f32(0.05)
    wf = w.float() * torch.tensor(ws).reshape(-1, 1)
    torch.testing.assert_close(op.reference(x, w, bias), F.linear(xf, wf, bias))


def test_qlinear_i32_result_is_the_exact_accumulator():
    op, x, w, _, _ = _qlinear_case(out_dtype=DType.i32)
    got = op.reference(x, w)
    assert got.dtype == torch.int32
    assert torch.equal(got.long(), (x.long() - 100) @ w.long().t())


def test_qlinear_u8_result_is_within_one_step_of_torch_quantized_linear():
    """torch's x86 int8 linear requantizes with its own float formula: ties may differ."""
    op, x, w, bias, ws = _qlinear_case(
        out_dtype=DType.u8, out_scale=f32(0.04), out_zero_point=7
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        qx = torch._make_per_tensor_quantized_tensor(x, f32(0.05), 100)
        scales = torch.tensor(ws, dtype=torch.float64)
        zeros = torch.zeros(7, dtype=torch.int64)
        qw = torch._make_per_channel_quantized_tensor(w, scales, zeros, 0)
        packed = torch.ops.quantized.linear_prepack(qw, bias)
        ref = torch.ops.quantized.linear(qx, packed, f32(0.04), 7).int_repr()
    diff = (op.reference(x, w, bias).int() - ref.int()).abs()
    assert diff.max() <= 1 and (diff == 0).float().mean() > 0.9


def test_qconv_reference_is_the_fake_quant_convolution():
    torch.manual_seed(3)
    x = torch.randint(0, 256, (2, 3, 7, 6), dtype=torch.uint8)
    w = torch.randint(-127, 128, (5, 3, 3, 2), dtype=torch.int8)
    ws = tuple(f32(0.01 * (i + 1)) for i in range(5))
    op = O.QConv2dOp.build(
        val(2, 3, 7, 6, dtype=DType.u8),
        val(5, 3, 3, 2, dtype=DType.i8),
        x_scale=f32(0.1),
        x_zero_point=9,
        w_scale=ws,
        padding=(1, 2),
        stride=(2, 1),
    )
    xf = (x.float() - 9) * f32(0.1)  # zero padding of the dequantized input
    wf = w.float() * torch.tensor(ws).reshape(-1, 1, 1, 1)
    ref = F.conv2d(xf, wf, None, (2, 1), (1, 2))
    torch.testing.assert_close(op.reference(x, w), ref, rtol=1e-5, atol=1e-5)


def test_dynamic_qparams_are_torch_choose_qparams():
    x = torch.randn(300) * 4
    scale, zp = dynamic_qparams(x)
    ref_scale, ref_zp = torch._choose_qparams_per_tensor(x, False)
    assert abs(float(scale) - ref_scale) <= 1e-6 * ref_scale and int(zp) == ref_zp


# ---- the verifier ------------------------------------------------------------------------
BAD = [
    (
        lambda: O.QuantizeOp.build(
            val(4), scale=(0.0,), zero_point=(0,), dtype=DType.u8
        ),
        "must be a finite number > 0",
    ),
    (
        lambda: O.QuantizeOp.build(
            val(4), scale=(0.1,), zero_point=(0,), dtype=DType.u8
        ),
        "is not a normal float32 value",
    ),
    (
        lambda: O.QuantizeOp.build(
            val(4), scale=(0.5,), zero_point=(300,), dtype=DType.u8
        ),
        "zero_point 300 is outside [0, 255]",
    ),
    (
        lambda: O.QuantizeOp.build(
            val(4, 3), scale=(0.5, 0.5), zero_point=(0, 0), axis=1, dtype=DType.u8
        ),
        "has 3 channels but 2 scales",
    ),
    (
        lambda: O.QuantizeOp.build(
            val(4, dtype=DType.i32), scale=(0.5,), zero_point=(0,), dtype=DType.u8
        ),
        "quantizes float32 tensors",
    ),
    (
        lambda: O.DequantizeOp.build(val(4), scale=(0.5,), zero_point=(0,)),
        "dequantizes u8, i8 or i32",
    ),
    (
        lambda: O.QLinearOp.build(
            val(2, 4, dtype=DType.u8), val(3, 4), w_scale=(0.5,) * 3, x_scale=0.5
        ),
        "weight must be i8",
    ),
    (
        lambda: O.QLinearOp.build(
            val(2, 4), val(3, 4, dtype=DType.i8), w_scale=(0.5,) * 3, x_scale=0.5
        ),
        "a static int8 input is u8",
    ),
    (
        lambda: O.QLinearOp.build(
            val(2, 4, dtype=DType.u8),
            val(3, 4, dtype=DType.i8),
            w_scale=(0.5,) * 3,
            x_scale=0.5,
            out_dtype=DType.u8,
        ),
        "needs out_scale",
    ),
    (
        lambda: O.QLinearOp.build(
            val(2, 4, dtype=DType.u8),
            val(3, 4, dtype=DType.i8),
            val(3),
            w_scale=(0.5,) * 3,
            x_scale=0.5,
            out_dtype=DType.i32,
        ),
        "no bias, no clamp",
    ),
    (
        lambda: O.QConv2dOp.build(
            val(1, 2, 5, 5, dtype=DType.u8),
            val(4, 2, 3, 3, dtype=DType.i8),
            w_scale=(0.5,) * 4,
            x_scale=0.5,
            layout="nhwc",
        ),
        "an nhwc result is for u8/i8 results",
    ),
    (lambda: O.LinearBf16Op.build(val(2, 4), val(3, 4)), "a bf16 weight"),
]


@pytest.mark.parametrize("make, message", BAD)
def test_verifier_refuses(make, message):
    with pytest.raises(VerifyError) as info:
        make()
    assert message in str(info.value)


# ---- the text format ---------------------------------------------------------------------
def _module(scale, zp, ws, layout, out) -> Module:
    m = Module("q")
    m.add_param("w", type=TensorType((4, 3, 3, 3), DType.i8))
    fn = m.add_function(Function("forward"))
    x = fn.add_arg(TensorType((2, 3, 8, 8), DType.f32), "x")
    q = fn.append(
        O.QuantizeOp.build(
            x, scale=(scale,), zero_point=(zp,), dtype=DType.u8, layout=layout
        )
    )
    w = fn.append(O.ParamOp.of(m, "w"))
    kw = (
        {"out_dtype": DType.u8, "out_scale": scale, "out_zero_point": zp} if out else {}
    )
    c = fn.append(
        O.QConv2dOp.build(
            q.result,
            w.result,
            x_scale=scale,
            x_zero_point=zp,
            w_scale=ws,
            clamp_min=0.0,
            stride=(2, 2),
            **kw,
        )
    )
    if out:
        r = fn.append(O.DequantizeOp.build(c.result, scale=(scale,), zero_point=(zp,)))
    else:
        r = fn.append(O.ReshapeOp.build(c.result, shape=(2, 36)))
    fn.set_outputs([r.result, fn.append(O.RoundBf16Op.build(x)).result])
    return m


@settings(max_examples=25, deadline=None)
@given(
    scale=_scales,
    zp=st.integers(0, 255),
    ws=st.lists(_scales, min_size=4, max_size=4).map(tuple),
    nhwc=st.booleans(),
)
def test_printed_quant_ops_parse_back_to_the_same_text(scale, zp, ws, nhwc):
    m = _module(scale, zp, ws, "nhwc" if nhwc else None, out=nhwc)
    verify(m)
    text = str(m)
    again = parse_module(text)
    verify(again)
    assert str(again) == text
