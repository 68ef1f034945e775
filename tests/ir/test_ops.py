"""Per-op type inference agrees with the op's torch reference on real tensors.

For every registered op: build it on the types of small random tensors, run ``reference``
on the tensors, and check the inferred result types are the shapes/dtypes torch produced.
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from cuvil.ir import OPS, DType, Module, SymbolRef, SymDim, TensorType, Trait, Value
from cuvil.ir import ops as O

torch.manual_seed(0)


def r(*shape: int) -> torch.Tensor:
    return torch.randn(shape)


def ints(*shape: int, high: int = 5) -> torch.Tensor:
    return torch.randint(0, high, shape)


def bools(*shape: int) -> torch.Tensor:
    return torch.rand(shape) > 0.5


def _check(name: str, tensors: list[torch.Tensor], **attrs) -> None:
    cls = OPS[name]
    values = [Value(TensorType.of(t), f"v{i}") for i, t in enumerate(tensors)]
    op = cls.build(*values, **attrs)
    out = op.reference(*tensors)
    outs = out if isinstance(out, tuple) else (out,)
    assert [v.type for v in op.results] == [TensorType.of(o) for o in outs]


def _case(name: str, tensors, **attrs):
    return pytest.param(name, tensors, attrs, id=name)


CASES = [
    *[_case(n, [r(2, 3)]) for n in O.UNARY_OPS],
    *[_case(n, [ints(2, 3)]) for n, c in O.UNARY_OPS.items() if not c.FLOAT_ONLY],
    _case("cuvil.gelu", [r(2, 3)], approximate="tanh"),
    _case("cuvil.leaky_relu", [r(4)], negative_slope=0.2),
    _case("cuvil.logical_not", [bools(3, 1)]),
    *[_case(n, [r(2, 1, 3), r(4, 1)]) for n in O.BINARY_OPS if "logical" not in n],
    *[
        _case(n, [ints(2, 1), ints(3)])
        for n in O.BINARY_OPS
        if n not in ("cuvil.div", "cuvil.logical_and", "cuvil.logical_or")
    ],
    _case("cuvil.logical_and", [bools(2, 1), bools(3)]),
    _case("cuvil.logical_or", [bools(3), bools(1)]),
    _case("cuvil.where", [bools(2, 1), r(3), r(2, 3)]),
    _case("cuvil.clamp", [r(2, 3)], min=-0.5, max=0.5),
    _case("cuvil.clamp", [ints(4)], max=2),
    _case("cuvil.cast", [r(2, 3)], dtype=DType.i32),
    _case("cuvil.cast", [ints(2)], dtype=DType.i1),
    *[
        _case(n, [r(2, 3, 4)], dims=(0, 2), keepdim=k)
        for n in O.REDUCE_OPS
        for k in (False, True)
    ],
    _case("cuvil.sum", [r(2, 3)], dims=()),
    _case("cuvil.var", [r(2, 3, 4)], dims=(1,), correction=0),
    _case("cuvil.argmax", [r(2, 3, 4)], dim=1),
    _case("cuvil.argmax", [r(2, 3, 4)], dim=2, keepdim=True),
    _case("cuvil.softmax", [r(2, 3)], dim=1),
    _case("cuvil.log_softmax", [r(2, 3)], dim=0),
    _case("cuvil.matmul", [r(5, 2, 3), r(3, 4)]),
    _case("cuvil.matmul", [r(2, 1, 2, 3), r(4, 3, 2)]),
    _case("cuvil.linear", [r(2, 5, 3), r(4, 3), r(4)]),
    _case("cuvil.linear", [r(3), r(4, 3)]),
    _case(
        "cuvil.conv1d",
        [r(2, 4, 9), r(6, 2, 3), r(6)],
        stride=(2,),
        padding=(1,),
        groups=2,
    ),
    _case(
        "cuvil.conv2d",
        [r(1, 3, 9, 8), r(4, 3, 3, 2)],
        stride=(2, 1),
        padding=(1, 0),
        dilation=(2, 1),
    ),
    _case("cuvil.batch_norm", [r(2, 3, 4), r(3), r(3).abs(), r(3), r(3)], eps=1e-3),
    _case("cuvil.layer_norm", [r(2, 3, 4), r(3, 4), r(3, 4)], normalized_shape=(3, 4)),
    _case("cuvil.layer_norm", [r(2, 5)], normalized_shape=(5,)),
    _case("cuvil.max_pool1d", [r(2, 3, 7)], kernel=(3,), stride=(2,), ceil_mode=True),
    _case(
        "cuvil.max_pool2d",
        [r(1, 2, 7, 6)],
        kernel=(3, 2),
        stride=(2, 2),
        padding=(1, 1),
        dilation=(2, 1),
    ),
    _case(
        "cuvil.avg_pool1d", [r(3, 8)], kernel=(2,), stride=(3,), count_include_pad=False
    ),
    _case(
        "cuvil.avg_pool2d",
        [r(1, 2, 7, 7)],
        kernel=(3, 3),
        stride=(2, 2),
        padding=(1, 1),
        ceil_mode=True,
        divisor_override=2,
    ),
    _case("cuvil.adaptive_avg_pool1d", [r(2, 3, 10)], output_size=(4,)),
    _case("cuvil.adaptive_avg_pool2d", [r(3, 7, 5)], output_size=(2, 3)),
    _case("cuvil.embedding", [r(10, 4), ints(2, 3, high=10)]),
    _case("cuvil.embedding", [r(10, 4), ints(5, high=10).int()]),
    _case("cuvil.index", [r(5, 3, 6), ints(2, 4), ints(4)], dims=(0, 2)),
    _case("cuvil.index", [r(5, 3, 6), ints(2, 1, high=3).int()], dims=(1,)),
    _case("cuvil.index_put", [r(5, 3), r(3), ints(4)], dims=(0,)),
    _case("cuvil.index_put", [r(5, 3), r(1), ints(2)], dims=(0,), accumulate=True),
    _case("cuvil.gather", [r(4, 6), ints(2, 3)], dim=1),
    _case("cuvil.scatter", [r(4, 6), ints(2, 3, high=4), r(3, 3)], dim=0),
    _case("cuvil.scatter", [r(4, 6), ints(2, 3), r(2, 3)], dim=1, reduce="add"),
    _case("cuvil.scatter", [r(4, 6), ints(2, 3), r(2, 3)], dim=1, reduce="max"),
    _case("cuvil.scatter", [ints(4, 6), ints(2, 3), ints(2, 3)], dim=1, reduce="mul"),
    _case("cuvil.reshape", [r(2, 3, 4)], shape=(4, -1)),
    _case("cuvil.reshape", [r(0, 3)], shape=(3, 0)),
    _case("cuvil.permute", [r(2, 3, 4)], dims=(2, 0, 1)),
    _case("cuvil.expand", [r(3, 1)], shape=(2, 3, 4)),
    _case("cuvil.slice", [r(4, 9)], dim=1, start=1, end=8, step=3),
    _case("cuvil.slice", [r(4, 9)], dim=0, start=2, end=2),
    _case("cuvil.cat", [r(2, 3), r(2, 1), r(2, 0)], dim=1),
    _case("cuvil.relayout", [r(2, 3, 4, 5)], layout="contiguous"),
    _case("cuvil.cumsum", [ints(2, 3)], dim=1),
    _case("cuvil.cumprod", [r(2, 3)], dim=0),
    _case("cuvil.cummax", [r(2, 3)], dim=1),
    _case("cuvil.cummin", [ints(4, 2)], dim=0),
    _case("cuvil.topk", [r(2, 5, 3)], dim=1, k=2),
    _case("cuvil.topk", [r(4, 3)], dim=0, k=4, largest=False, indices=True),
    _case("cuvil.pad", [r(2, 3, 4)], pads=(1, -2, 0, 2), value=1.5),
    _case("cuvil.pad", [r(1, 2, 3, 4)], pads=(2, 1, 1, 2), mode="reflect"),
    _case("cuvil.pad", [r(2, 3)], pads=(2, 1), mode="replicate"),
    _case("cuvil.upsample", [r(1, 2, 3, 4)], size=(5, 7), mode="linear"),
    _case("cuvil.upsample", [r(1, 2, 3)], size=(6,), mode="nearest", scales=(2.0,)),
    _case("cuvil.group_norm", [r(2, 4, 3), r(4), r(4)], groups=2, eps=1e-3),
]
# ir/ops/mathx.py: attribute-free ones on floats (and on ints where torch keeps them)
_MATH_ATTRS = {
    "cuvil.round": {"decimals": 2},
    "cuvil.nan_to_num": {"nan": 0.0, "posinf": 1.0, "neginf": -1.0},
    "cuvil.elu": {"alpha": 1.0, "scale": 1.0, "input_scale": 1.0},
    "cuvil.shrink": {"lambd": 0.5, "soft": True},
}
CASES += (
    [
        _case(n, [ints(2, 3) if "bitwise" in n else r(2, 3)], **_MATH_ATTRS.get(n, {}))
        for n in O.MATH_UNARY
    ]
    + [
        _case(
            n,
            [bools(2, 3), bools(3)]
            if n == "cuvil.logical_xor"
            else [ints(2, 3), ints(3)]
            if "bitwise" in n
            else [r(2, 3), r(3)],
        )
        for n in O.MATH_BINARY
    ]
    + [
        _case(n, [ints(2, 3), ints(3, high=4) + 1])
        for n in (
            "cuvil.floor_divide",
            "cuvil.trunc_divide",
            "cuvil.remainder",
            "cuvil.fmod",
        )
    ]
)


# ir/ops/quant*.py (their meaning: tests/ir/test_quant_ops.py)
def _u8(*shape: int) -> torch.Tensor:
    return torch.randint(0, 256, shape, dtype=torch.uint8)


def _i8(*shape: int) -> torch.Tensor:
    return torch.randint(-127, 128, shape, dtype=torch.int8)


_Q = {"x_scale": 0.5, "x_zero_point": 3}
CASES += [
    _case("cuvil.quantize", [r(2, 3)], scale=(0.5,), zero_point=(3,), dtype=DType.u8),
    _case(
        "cuvil.dequantize", [_i8(2, 3)], scale=(0.5, 0.25), zero_point=(0, 1), axis=0
    ),
    _case("cuvil.fake_quantize_dynamic", [r(2, 3)]),
    _case("cuvil.round_bf16", [r(2, 3)]),
    _case("cuvil.qlinear", [_u8(2, 4), _i8(3, 4), r(3)], w_scale=(0.5,) * 3, **_Q),
    _case(
        "cuvil.qconv2d", [_u8(1, 2, 5, 5), _i8(3, 2, 3, 3)], w_scale=(0.5,) * 3, **_Q
    ),
    _case("cuvil.linear_bf16", [r(2, 4), r(3, 4).bfloat16()]),
    _case("cuvil.conv2d_bf16", [r(1, 2, 5, 5), r(3, 2, 3, 3).bfloat16(), r(3)]),
    _case("cuvil.matmul_bf16", [r(2, 3, 4), r(4, 5)]),
]


@pytest.mark.parametrize("name, tensors, attrs", CASES)
def test_inferred_type_matches_reference_result(name, tensors, attrs):
    _check(name, tensors, **attrs)


def test_every_registered_op_has_an_inference_case():
    # cuvil.fused takes its types from its body function: tests/passes covers it
    covered = {c.values[0] for c in CASES} | {
        "cuvil.constant",
        "cuvil.param",
        "cuvil.fused",
    }
    assert covered == set(OPS)


@pytest.mark.parametrize("value", [torch.tensor(2.5), ints(2, 3), bools(0, 2)])
def test_constant_type_is_the_type_of_its_value(value: torch.Tensor):
    op = O.ConstantOp.build(value=value)
    assert op.result.type == TensorType.of(op.reference())


def test_param_type_is_the_declared_type():
    m = Module()
    m.add_param("w", type=TensorType((SymDim("n"), 3), DType.bf16))
    assert O.ParamOp.of(m, "w").result.type == m.params["w"]


def test_param_op_refers_to_its_symbol():
    m = Module()
    m.add_param("fc.weight", data=torch.zeros(2))
    op = O.ParamOp.of(m, "fc.weight")
    assert (op.symbol(), op.attrs["name"]) == ("fc.weight", SymbolRef("fc.weight"))


def test_build_fills_default_attributes():
    op = O.Conv2dOp.build(
        Value(TensorType((1, 3, 5, 5), DType.f32)),
        Value(TensorType((2, 3, 3, 3), DType.f32)),
    )
    assert op.attrs == {
        "stride": (1, 1),
        "padding": (0, 0),
        "dilation": (1, 1),
        "groups": 1,
    }


def test_traits_mark_elementwise_and_commutative_ops():
    assert O.BINARY_OPS["cuvil.add"].TRAITS >= {Trait.ELEMENTWISE, Trait.COMMUTATIVE}
    assert Trait.COMMUTATIVE not in O.BINARY_OPS["cuvil.sub"].TRAITS
    assert Trait.VIEW in O.ReshapeOp.TRAITS and Trait.REDUCTION in O.ArgmaxOp.TRAITS


def test_symbolic_batch_flows_through_linear_and_reshape():
    x = Value(TensorType((SymDim("batch"), 4, 4), DType.f32))
    flat = O.ReshapeOp.build(x, shape=(SymDim("batch"), -1)).result
    assert flat.type.shape == (SymDim("batch"), SymDim())
    w = Value(TensorType((3, 16), DType.f32))
    assert O.LinearOp.build(flat, w).result.type.shape == (SymDim("batch"), 3)


def test_unary_op_keeps_the_layout():
    t = TensorType((1, 2, 3, 4), DType.f32, "nhwc")
    assert O.UNARY_OPS["cuvil.relu"].build(Value(t)).result.type == t


# ---- properties: the formula-heavy ops against torch on random shapes ---------------------


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 2),
    batch=st.integers(1, 2),
    groups=st.integers(1, 2),
    cin=st.integers(1, 2),
    cout=st.integers(1, 2),
    size=st.integers(3, 8),
    k=st.integers(1, 3),
    s=st.integers(1, 3),
    p=st.integers(0, 2),
    d=st.integers(1, 2),
    bias=st.booleans(),
)
def test_conv_output_shape_matches_torch(
    n, batch, groups, cin, cout, size, k, s, p, d, bias
):
    if size + 2 * p < d * (k - 1) + 1:
        return  # torch rejects the window too
    x = r(batch, cin * groups, *[size] * n)
    w = r(cout * groups, cin, *[k] * n)
    extra = [r(cout * groups)] if bias else []
    _check(
        f"cuvil.conv{n}d",
        [x, w, *extra],
        stride=(s,) * n,
        padding=(p,) * n,
        dilation=(d,) * n,
        groups=groups,
    )


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(1, 2),
    kind=st.sampled_from(["max", "avg"]),
    size=st.integers(1, 9),
    k=st.integers(1, 4),
    s=st.integers(1, 3),
    data=st.data(),
    ceil=st.booleans(),
)
def test_pool_output_shape_matches_torch(n, kind, size, k, s, data, ceil):
    p = data.draw(st.integers(0, k // 2))
    d = data.draw(st.integers(1, 2)) if kind == "max" else 1
    if size + 2 * p < d * (k - 1) + 1:
        return
    attrs = {
        "kernel": (k,) * n,
        "stride": (s,) * n,
        "padding": (p,) * n,
        "ceil_mode": ceil,
    }
    if kind == "max":
        attrs["dilation"] = (d,) * n
    _check(f"cuvil.{kind}_pool{n}d", [r(1, 2, *[size] * n)], **attrs)


_shape = st.lists(st.integers(1, 3), max_size=3)


@settings(max_examples=60, deadline=None)
@given(a=_shape, b=_shape, name=st.sampled_from(sorted(O.BINARY_OPS)))
def test_binary_broadcast_shape_matches_torch(a, b, name):
    try:
        torch.broadcast_shapes(a, b)
    except RuntimeError:
        return
    make = bools if "logical" in name else r
    _check(name, [make(*a), make(*b)])


@settings(max_examples=60, deadline=None)
@given(size=st.integers(0, 9), data=st.data())
def test_slice_length_matches_torch(size, data):
    start = data.draw(st.integers(0, size))
    end = data.draw(st.integers(start, size))
    _check(
        "cuvil.slice",
        [r(2, size)],
        dim=1,
        start=start,
        end=end,
        step=data.draw(st.integers(1, 4)),
    )
