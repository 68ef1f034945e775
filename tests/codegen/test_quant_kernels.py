"""The int8 / bf16 kernels (codegen/qgemm.py, amx.py, qconv.py, qops.py) against references.

Integer arithmetic is exact, so the int8 GEMM's int32 accumulators must equal torch's
int64 matmul on every instruction set, and the requantized / dequantized results must
equal the op's reference (the same float32 operations in the same order) bit for bit.
bf16 products are exact in float32; only the order of the sums differs (a tolerance).
Shapes are drawn by hypothesis, edge tiles included (m, n, k not multiples of the tile).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from cuvil.codegen.cpu import resolve_isa
from cuvil.codegen.qgemm import column_sums, pack_weight, padded, plan_qgemm
from cuvil.codegen.qsimd import QEpilogue
from cuvil.errors import CuvilError
from cuvil.ir import DType, Function, Module, TensorType
from cuvil.ir import ops as O
from cuvil.ir.interpreter import interpret
from cuvil.ir.ops.quant import f32, inv_scale
from cuvil.ir.verifier import verify
from cuvil.options import CompileOptions
from cuvil.pipeline import compile_module
from cuvil.runtime.qgemm_jit import compile_qgemm


def _usable(mode: str, isa: str) -> bool:
    try:
        resolve_isa(mode, isa)
    except CuvilError:
        return False
    return True


def _isas(mode: str) -> list:
    return [
        pytest.param(
            isa,
            marks=pytest.mark.skipif(
                not _usable(mode, isa), reason=f"this CPU cannot run {mode} on {isa}"
            ),
        )
        for isa in ("portable", "avx512", "amx")
    ]


def _module_isas(isa: str) -> dict:
    """The int8 isa under test, and bf16 on the same one where this CPU has it: VNNI
    comes without AVX512-BF16 on Cascade Lake and Ice Lake (bf16 then runs portable)."""
    return {"int8": isa, "bf16": isa if _usable("bf16", isa) else "portable"}


_dims = st.tuples(st.integers(1, 70), st.integers(1, 70), st.integers(1, 200))


@pytest.mark.slow
@pytest.mark.parametrize("isa", _isas("int8"))
@settings(max_examples=25, deadline=None)
@given(dims=_dims, zx=st.integers(0, 255), seed=st.integers(0, 2**16))
def test_int8_gemm_accumulators_are_exact(isa, dims, zx, seed):
    m, n, k = dims
    g = torch.Generator().manual_seed(seed)
    plan = plan_qgemm(m, n, k, isa)
    a = torch.randint(0, 256, (m, k), generator=g, dtype=torch.uint8)
    w = torch.randint(-128, 128, (n, k), generator=g, dtype=torch.int8)
    buf = torch.zeros(plan.mp, plan.lda, dtype=torch.uint8)
    buf[:m, :k] = a
    corr = padded(column_sums(w) * zx, plan.np_, torch.int32)
    kernel = compile_qgemm(plan, QEpilogue(out="i32", row_stride=n))
    c = torch.full((m, n), -7, dtype=torch.int32)
    kernel(c, buf, pack_weight(w, plan), corr)
    assert torch.equal(c.long(), (a.long() - zx) @ w.long().t())


@pytest.mark.slow
@pytest.mark.parametrize("isa", _isas("bf16"))
@settings(max_examples=15, deadline=None)
@given(dims=_dims, seed=st.integers(0, 2**16))
def test_bf16_gemm_matches_float64_on_bf16_values(isa, dims, seed):
    m, n, k = dims
    g = torch.Generator().manual_seed(seed)
    plan = plan_qgemm(m, n, k, isa, dtype="bf16")
    a = torch.randn(m, k, generator=g).bfloat16()
    w = torch.randn(n, k, generator=g).bfloat16()
    buf = torch.zeros(plan.mp, plan.lda // 2, dtype=torch.bfloat16)
    buf[:m, :k] = a
    kernel = compile_qgemm(
        plan, QEpilogue(out="f32", corr=False, mult=False, row_stride=n)
    )
    c = torch.zeros(m, n)
    kernel(c, buf.view(torch.int16), pack_weight(w, plan).view(torch.int16))
    ref = a.double() @ w.double().t()
    torch.testing.assert_close(c.double(), ref, rtol=1e-5, atol=1e-5 * k**0.5)


# ---- whole ops, compiled, against the interpreter -------------------------------------------
def _conv_module(isa, shape, cout, kernel, stride, pad, layout, out):
    m = Module("q")
    m.isa = _module_isas(isa)
    fn = m.add_function(Function("forward"))
    x = fn.add_arg(TensorType(shape, DType.f32), "x")
    g = torch.Generator().manual_seed(sum(shape))
    w = torch.randint(
        -127, 128, (cout, shape[1], *kernel), generator=g, dtype=torch.int8
    )
    m.add_param("w", w)
    m.add_param("b", torch.randn(cout, generator=g))
    m.add_param("wb", torch.randn(cout, shape[1], *kernel, generator=g).bfloat16())
    q = fn.append(
        O.QuantizeOp.build(
            x, scale=(f32(0.03),), zero_point=(120,), dtype=DType.u8, layout=layout
        )
    )
    ws = tuple(f32(0.002 * (i + 1)) for i in range(cout))
    attrs = dict(
        x_scale=f32(0.03),
        x_zero_point=120,
        w_scale=ws,
        stride=stride,
        padding=pad,
        clamp_min=0.0,
    )
    if out == "u8":
        attrs.update(
            out_dtype=DType.u8, out_scale=f32(0.05), out_zero_point=3, layout=layout
        )
    wv, bv = (fn.append(O.ParamOp.of(m, n)).result for n in ("w", "b"))
    c = fn.append(O.QConv2dOp.build(q.result, wv, bv, **attrs))
    if out == "u8":
        c = fn.append(
            O.DequantizeOp.build(c.result, scale=(f32(0.05),), zero_point=(3,))
        )
    if c.result.type.layout == "nhwc":
        c = fn.append(O.RelayoutOp.build(c.result, layout="contiguous"))
    wb = fn.append(O.ParamOp.of(m, "wb")).result
    cb = fn.append(O.Conv2dBf16Op.build(x, wb, bv, stride=stride, padding=pad))
    fn.set_outputs([c.result, cb.result])
    return verify(m)


@pytest.mark.slow
@pytest.mark.parametrize("isa", _isas("int8"))
@settings(max_examples=12, deadline=None)
@given(
    c=st.integers(1, 9),
    hw=st.tuples(st.integers(3, 11), st.integers(3, 11)),
    cout=st.integers(1, 40),
    kernel=st.sampled_from([(1, 1), (3, 3), (2, 3)]),
    stride=st.sampled_from([(1, 1), (2, 2), (2, 1)]),
    pad=st.sampled_from([(0, 0), (1, 1), (1, 0)]),
    layout=st.sampled_from(["nhwc", "contiguous"]),
    out=st.sampled_from(["u8", "f32"]),
)
def test_compiled_qconv_equals_the_reference_bit_for_bit(
    isa, c, hw, cout, kernel, stride, pad, layout, out
):
    m = _conv_module(isa, (2, c, *hw), cout, kernel, stride, pad, layout, out)
    x = torch.randn(2, c, *hw)
    ref = interpret(m, [x])
    got = compile_module(m, CompileOptions())(x)
    assert torch.equal(got[0], ref[0])
    torch.testing.assert_close(got[1], ref[1], rtol=1e-4, atol=1e-4)


def _linear_module(isa, rows, k, n, dynamic):
    m = Module("l")
    m.isa = _module_isas(isa)
    fn = m.add_function(Function("forward"))
    x = fn.add_arg(TensorType((rows, k), DType.f32), "x")
    g = torch.Generator().manual_seed(rows * 1000 + k)
    m.add_param("w", torch.randint(-127, 128, (n, k), generator=g, dtype=torch.int8))
    m.add_param("b", torch.randn(n, generator=g))
    wv, bv = (fn.append(O.ParamOp.of(m, name)).result for name in ("w", "b"))
    ws = tuple(f32(0.01 + 0.001 * i) for i in range(n))
    if dynamic:
        y = fn.append(O.QLinearOp.build(x, wv, bv, w_scale=ws, clamp_max=1.5))
    else:
        q = fn.append(
            O.QuantizeOp.build(x, scale=(f32(0.02),), zero_point=(130,), dtype=DType.u8)
        )
        y = fn.append(
            O.QLinearOp.build(
                q.result,
                wv,
                bv,
                w_scale=ws,
                x_scale=f32(0.02),
                x_zero_point=130,
                out_dtype=DType.i8,
                out_scale=f32(0.1),
                out_zero_point=-5,
            )
        )
    fake = fn.append(O.FakeQuantizeDynamicOp.build(x))
    xt = fn.append(O.PermuteOp.build(x, dims=(1, 0)))
    mm = fn.append(O.MatmulBf16Op.build(x, xt.result))
    rb = fn.append(O.RoundBf16Op.build(x))
    fn.set_outputs([y.result, fake.result, rb.result, mm.result])
    return verify(m)


@pytest.mark.slow
@pytest.mark.parametrize("isa", _isas("int8"))
@settings(max_examples=12, deadline=None)
@given(
    rows=st.integers(1, 20),
    k=st.integers(1, 150),
    n=st.integers(1, 50),
    dynamic=st.booleans(),
)
def test_compiled_qlinear_equals_the_reference_bit_for_bit(isa, rows, k, n, dynamic):
    m = _linear_module(isa, rows, k, n, dynamic)
    x = torch.randn(rows, k) * 3
    outs = zip(interpret(m, [x]), compile_module(m, CompileOptions())(x))
    for i, (r, g) in enumerate(outs):
        if isinstance(m.main.outputs[i].owner, O.MatmulBf16Op):
            torch.testing.assert_close(g, r, rtol=1e-4, atol=1e-4)
        else:
            assert torch.equal(r, g)


def test_requantization_rounds_ties_to_even_like_the_reference():
    """y * inv lands exactly on .5 for these accumulators: both must round to even."""
    plan = plan_qgemm(1, 16, 4, "portable")
    w = torch.eye(16, 4, dtype=torch.int8)
    a = torch.tensor([[1, 3, 5, 7]], dtype=torch.uint8)
    mult = padded(torch.full((16,), 0.5), plan.np_, torch.float32)
    ep = QEpilogue(out="u8", row_stride=16, inv=inv_scale(1.0), zp=0)
    c = torch.zeros(1, 16, dtype=torch.uint8)
    corr = torch.zeros(plan.np_, dtype=torch.int32)
    compile_qgemm(plan, ep)(c, a, pack_weight(w, plan), corr, mult)
    assert c[0, :4].tolist() == [0, 2, 2, 4]  # 0.5, 1.5, 2.5, 3.5 to even


# ---- the fast tier: fixed edge shapes, one build per instruction set -------------------
_BF16_SUMS = (O.Conv2dBf16Op, O.LinearBf16Op, O.MatmulBf16Op)


def _fixed_module(isa: str) -> Module:
    """Edge tiles everywhere: m, n, k off the tile sizes, stride, padding, both layouts."""
    m = _conv_module(isa, (2, 5, 9, 7), 20, (3, 3), (2, 1), (1, 1), "nhwc", "u8")
    other = _conv_module(
        isa, (1, 3, 6, 6), 33, (2, 3), (1, 1), (1, 0), "contiguous", "f32"
    )
    lin = _linear_module(isa, 7, 45, 19, dynamic=False)
    dyn = _linear_module(isa, 3, 66, 33, dynamic=True)
    return m, other, lin, dyn


@pytest.fixture(scope="module", params=_isas("int8"))
def built(request):
    modules = _fixed_module(request.param)
    return [(m, compile_module(m, CompileOptions())) for m in modules]


def test_compiled_quant_ops_equal_the_reference_on_edge_shapes(built):
    torch.manual_seed(5)
    for m, compiled in built:
        x = torch.randn(*[int(d) for d in m.main.args[0].type.shape]) * 2
        for i, (r, g) in enumerate(zip(interpret(m, [x]), compiled(x))):
            if isinstance(m.main.outputs[i].owner, _BF16_SUMS):  # the order of sums
                torch.testing.assert_close(g, r, rtol=1e-4, atol=1e-4)
            else:
                assert torch.equal(g, r), (m.name, i)


@pytest.mark.parametrize("isa", _isas("int8"))
def test_int8_gemm_accumulators_are_exact_on_edge_tiles(isa):
    for m, n, k in [(33, 17, 65), (1, 40, 7)]:
        test_int8_gemm_accumulators_are_exact.hypothesis.inner_test(
            isa, (m, n, k), 200, 1
        )


@pytest.mark.parametrize("isa", _isas("int8"))
def test_int8_results_on_one_lane_edges_stay_in_their_row(isa):
    """n = 17 / 33 leaves one lane in the last vector: LLVM 22 stored 4 bytes for a
    masked one-lane <16 x i8> store there, clobbering the next row (found by the
    hypothesis sweep); the edge is stored byte by byte."""
    for n in (17, 33):
        plan = plan_qgemm(9, n, 4, isa)
        g = torch.Generator().manual_seed(n)
        a = torch.zeros(plan.mp, plan.lda, dtype=torch.uint8)
        a[:9, :4] = torch.randint(0, 256, (9, 4), generator=g, dtype=torch.uint8)
        w = torch.randint(-128, 128, (n, 4), generator=g, dtype=torch.int8)
        corr = torch.zeros(plan.np_, dtype=torch.int32)
        mult = padded(torch.full((n,), 0.01), plan.np_, torch.float32)
        c = torch.zeros(9, n, dtype=torch.uint8)
        ep = QEpilogue(out="u8", row_stride=n, inv=1.0, zp=100)
        compile_qgemm(plan, ep)(c, a, pack_weight(w, plan), corr, mult)
        y = (a[:9, :4].long() @ w.long().t()).float() * torch.tensor(0.01)
        assert torch.equal(c.float(), (torch.round(y) + 100).clamp(0, 255)), n


@pytest.mark.slow
@pytest.mark.skipif(not _usable("int8", "amx"), reason="no AMX here")
def test_a_module_naming_amx_gets_the_tile_permission_in_a_fresh_process():
    """Code generation asks for AMX's tile state itself: a module whose `isa` says amx,
    built in a process that never resolved an isa, runs instead of dying of SIGILL."""
    import subprocess
    import sys

    code = """
import torch
from cuvil.ir import DType, Function, Module, TensorType
from cuvil.ir import ops as O
from cuvil.options import CompileOptions
from cuvil.pipeline import compile_module
m = Module("amx")
m.isa = {"int8": "amx"}
fn = m.add_function(Function("forward"))
x = fn.add_arg(TensorType((3, 70), DType.u8), "x")
m.add_param("w", torch.ones(20, 70, dtype=torch.int8))
w = fn.append(O.ParamOp.of(m, "w")).result
y = fn.append(O.QLinearOp.build(x, w, w_scale=(0.5,) * 20, x_scale=0.5))
fn.set_outputs([y.result])
print(compile_module(m, CompileOptions())(torch.ones(3, 70, dtype=torch.uint8)))
"""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root
    )
    assert done.returncode == 0, done.stderr


class _ActMatmul(torch.nn.Module):
    """Attention's shape: two activations, the second transposed (q @ k^T)."""

    def forward(self, a, b):
        return torch.relu(a) @ b.transpose(-1, -2)


@pytest.mark.parametrize("isa", _isas("bf16"))
def test_compiled_bf16_matmul_of_two_activations_matches_float64(isa):
    """bf16matmul.py packs B at run time: edge sizes (17 x 19, k = 40) on each isa
    against float64 on the bf16-rounded operands."""
    import cuvil

    torch.manual_seed(3)
    a, b = torch.randn(3, 17, 40), torch.randn(3, 19, 40)
    opts = {"bf16": True, "isa": isa}
    compiled = cuvil.compile(_ActMatmul(), [a, b], quantize=opts)
    assert "cuvil.matmul_bf16" in [k.op_name for k in compiled.program.kernels]
    ref = torch.relu(a).bfloat16().double() @ b.bfloat16().double().transpose(-1, -2)
    torch.testing.assert_close(compiled(a, b).double(), ref, rtol=1e-4, atol=1e-5)
