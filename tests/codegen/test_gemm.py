"""Numerics of the generated GEMM kernels against a float64 torch reference."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from cuvil.codegen.gemm import (
    GemmPlan,
    emit_gemm,
    pack_a,
    pack_b,
    plan_gemm,
    relu,
)
from cuvil.runtime.gemm_jit import compile_gemm

LAYOUTS = ["packed-b", "plain-b", "trans-b", "packed-a"]


def run_gemm(plan: GemmPlan, layout: str, *, bias=None, residual=None, epilogue=None):
    """Compile one kernel, run it on random data; return (C, float64 reference)."""
    gen = torch.Generator().manual_seed(plan.m * 7919 + plan.n * 31 + plan.k)
    a = torch.randn(plan.m, plan.k, generator=gen)
    b = torch.randn(plan.k, plan.n, generator=gen)
    options = {"b_packed": layout == "packed-b", "epilogue": epilogue}
    ka, kb = a, b
    if layout == "packed-b":
        kb = pack_b(b, plan)
    elif layout == "trans-b":
        kb, options["trans_b"] = b.t().contiguous(), True
    elif layout == "packed-a":
        ka, options["a_packed"] = pack_a(a, plan), True
    ref = a.double() @ b.double()
    vectors = {"n": torch.randn(plan.n, generator=gen), "m": torch.randn(plan.m)}
    bias_t = vectors[bias] if bias else None
    if bias == "n":
        ref += bias_t.double()
    elif bias == "m":
        ref += bias_t.double()[:, None]
    res_t = torch.randn(plan.m, plan.n, generator=gen) if residual else None
    if residual == "pre":
        ref += res_t.double()
    if epilogue is relu:
        ref = ref.clamp_min(0)
    if residual == "post":
        ref += res_t.double()
    kernel = compile_gemm(plan, bias=bias, residual=residual, **options)
    c = torch.full((plan.m, plan.n), float("nan"))
    kernel(c, ka, kb, bias_t, res_t)
    return c, ref


def assert_close(c: torch.Tensor, ref: torch.Tensor, k: int) -> None:
    # float32 accumulation error grows ~sqrt(k) * |a||b|; inputs are N(0, 1).
    tol = 1e-5 * math.sqrt(k) * 4 + 1e-4 * ref.abs()
    err = (c.double() - ref).abs()
    assert not torch.isnan(c).any(), "kernel left C entries unwritten"
    assert (err <= tol).all(), f"max error {err.max().item():.3g}"


SHAPES = [
    (1, 512, 784),
    (1, 256, 512),
    (8, 256, 512),
    (128, 256, 256),
    (128, 256, 1024),
    (37, 100, 600),
    (64, 1000, 147),
    (512, 49, 300),
]


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("layout", ["packed-b", "plain-b", "packed-a"])
def test_fixed_shapes_match_torch(m, n, k, layout):
    plan = plan_gemm(m, n, k, b_packed=layout == "packed-b")
    assert_close(*run_gemm(plan, layout), k)


def test_attention_shapes_with_runtime_b():
    for (m, n, k), layout in [
        ((128, 128, 64), "trans-b"),
        ((128, 64, 128), "plain-b"),
        ((37, 100, 600), "trans-b"),
    ]:
        assert_close(*run_gemm(plan_gemm(m, n, k, b_packed=False), layout), k)


@settings(max_examples=15, deadline=None)
@given(
    m=st.integers(1, 70),
    n=st.integers(1, 70),
    k=st.integers(1, 70),
    layout=st.sampled_from(LAYOUTS),
)
def test_random_small_shapes_match_torch(m, n, k, layout):
    assert_close(*run_gemm(plan_gemm(m, n, k), layout), k)


@settings(max_examples=15, deadline=None)
@given(
    m=st.integers(1, 40),
    n=st.integers(1, 70),
    k=st.integers(1, 90),
    mr=st.integers(1, 9),
    nvec=st.integers(1, 4),
    kc=st.integers(1, 40),
    copies=st.sampled_from([(False, False), (True, True), (True, False)]),
    layout=st.sampled_from(LAYOUTS),
)
def test_any_tiling_matches_torch(m, n, k, mr, nvec, kc, copies, layout):
    """Edge tiles, several k-blocks, m-blocks and stack copies, whatever the tile."""
    mc = mr * 2 if mr * 2 < m else 0
    plan = GemmPlan(
        m, n, k, mr, 16 * nvec, kc, mc=mc, copy_a=copies[0], copy_b=copies[1]
    )
    assert_close(*run_gemm(plan, layout), k)


FUSIONS = [(layout, "n", "pre") for layout in LAYOUTS] + [
    ("packed-b", None, None),
    ("packed-b", "m", "post"),
    ("packed-a", "m", None),
    ("trans-b", None, "post"),
]


@pytest.mark.parametrize("layout,bias,residual", FUSIONS)
def test_fused_bias_relu_residual(layout, bias, residual):
    plan = GemmPlan(19, 45, 70, mr=4, nr=32, kc=30)  # 3 k-blocks, edge tiles
    out = run_gemm(plan, layout, bias=bias, residual=residual, epilogue=relu)
    assert_close(*out, plan.k)


def test_epilogue_sees_row_and_column_indices():
    """The callable gets i64 row and first-column values: here C = row * 1000 + col."""

    def index_epilogue(builder, vec, row, col):
        import llvmlite.ir as ir

        f32, width = ir.FloatType(), vec.type.count
        lanes = ir.Constant(ir.VectorType(f32, width), list(range(width)))
        base = builder.sitofp(builder.add(builder.mul(row, row.type(1000)), col), f32)
        splat = builder.insert_element(ir.Constant(vec.type, None), base, row.type(0))
        zeros = ir.Constant(ir.VectorType(ir.IntType(32), width), [0] * width)
        splat = builder.shuffle_vector(splat, ir.Constant(vec.type, None), zeros)
        return builder.fadd(
            builder.fmul(vec, ir.Constant(vec.type, 0.0)), builder.fadd(splat, lanes)
        )

    plan = GemmPlan(5, 37, 3, mr=2, nr=32, kc=3)
    c, _ = run_gemm(plan, "packed-b", epilogue=index_epilogue)
    rows, cols = torch.meshgrid(torch.arange(5), torch.arange(37), indexing="ij")
    assert torch.equal(c, (rows * 1000 + cols).float())


def test_packed_layouts():
    plan = GemmPlan(3, 20, 2, mr=2, nr=16, kc=2)
    a = torch.arange(6.0).reshape(3, 2)
    b = torch.arange(40.0).reshape(2, 20)
    assert pack_a(a, plan).shape == (2, 2, 2)  # [ceil(m/mr), k, mr]
    assert pack_a(a, plan)[1, :, 1].tolist() == [0.0, 0.0]  # zero padded row
    assert pack_a(a, plan)[0, 1].tolist() == [1.0, 3.0]  # A[0:2, 1]
    packed = pack_b(b, plan)
    assert packed.shape == (2, 2, 16)  # [ceil(n/nr), k, nr]
    assert packed[1, 1, :4].tolist() == [36.0, 37.0, 38.0, 39.0]
    assert packed[1, 1, 4:].abs().sum() == 0


def test_signature_is_five_noalias_float_pointers():
    import llvmlite.ir as ir

    module = ir.Module()
    fn = emit_gemm(module, "g", plan_gemm(4, 4, 4))
    assert [a.name for a in fn.args] == ["C", "A", "B", "bias", "residual"]
    assert all("noalias" in a.attributes for a in fn.args)


def test_bad_options_are_rejected():
    import llvmlite.ir as ir

    with pytest.raises(ValueError, match="trans_b"):
        emit_gemm(ir.Module(), "g", plan_gemm(4, 4, 4), trans_b=True)
    with pytest.raises(ValueError, match="bias"):
        emit_gemm(ir.Module(), "g", plan_gemm(4, 4, 4), bias="rows")
    with pytest.raises(ValueError, match="multiple"):
        GemmPlan(4, 4, 4, mr=2, nr=24, kc=4)
