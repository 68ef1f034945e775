"""The direct channels-last convolution (codegen/conv.py) against torch, over
hypothesis-drawn shapes and tilings: odd sizes, stride / padding / dilation, batch 1 and
more, edge tiles in positions and channels, the bordered-copy and in-place forms, k-blocks,
several threads; and compiled models (conv + bias + ReLU + residual) against eager."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch import nn

import cuvil
from cuvil.codegen.conv_plan import ConvPlan, default_conv_plan, pack_conv_weight
from cuvil.codegen.gemm import relu
from cuvil.codegen.im2col import ConvShape
from cuvil.runtime.gemm_jit import compile_conv


def conv_shape(n, c, o, hw, kernel, stride, padding, dilation) -> ConvShape | None:
    outs = tuple(
        (size + 2 * p - d * (k - 1) - 1) // s + 1
        for size, k, s, p, d in zip(hw, kernel, stride, padding, dilation)
    )
    if min(outs) < 1:
        return None
    return ConvShape(n, 1, c, o, hw, outs, kernel, stride, padding, dilation)


def run(plan: ConvPlan, *, bias=True, residual=None, epilogue=None, seed=0):
    """(kernel output, float64 reference), both NHWC."""
    cs = plan.cs
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(cs.n, cs.cg, *cs.ins, generator=gen)
    w = torch.randn(cs.og, cs.cg, *cs.kernel, generator=gen)
    b = torch.randn(cs.og, generator=gen) if bias else None
    ref = F.conv2d(
        x.double(),
        w.double(),
        None if b is None else b.double(),
        cs.stride,
        cs.padding,
        cs.dilation,
    ).permute(0, 2, 3, 1)
    res = torch.randn(ref.shape, generator=gen) if residual else None
    if residual == "pre":
        ref = ref + res.double()
    if epilogue is relu:
        ref = ref.clamp_min(0)
    if residual == "post":
        ref = ref + res.double()
    kernel = compile_conv(plan, bias=bias, residual=residual, epilogue=epilogue)
    out = torch.full(ref.shape, float("nan"))
    kernel(out, x.permute(0, 2, 3, 1).contiguous(), pack_conv_weight(w, plan), b, res)
    return out, ref


def assert_close(out: torch.Tensor, ref: torch.Tensor, k: int) -> None:
    assert not torch.isnan(out).any(), "the kernel left outputs unwritten"
    tol = 4e-6 * math.sqrt(k) * 4 + 1e-4 * ref.abs()
    err = (out.double() - ref).abs()
    assert (err <= tol).all(), f"max error {err.max().item():.3g}"


RESNET = [  # (n, c, o, hw, kernel, stride, padding): ResNet-18's shapes, smaller images
    (1, 3, 64, (45, 37), (7, 7), (2, 2), (3, 3)),  # the stem: bordered copy
    (1, 64, 64, (14, 14), (3, 3), (1, 1), (1, 1)),
    (2, 64, 128, (13, 11), (3, 3), (2, 2), (1, 1)),
    (1, 256, 512, (7, 7), (3, 3), (1, 1), (1, 1)),  # 14 x 32 tiles, prefetch
    (1, 64, 128, (14, 14), (1, 1), (2, 2), (0, 0)),  # downsample 1x1
]


@pytest.mark.parametrize("shape", RESNET, ids=lambda s: f"c{s[1]}o{s[2]}k{s[4][0]}")
def test_default_plans_match_torch(shape):
    n, c, o, hw, kernel, stride, padding = shape
    cs = conv_shape(n, c, o, hw, kernel, stride, padding, (1, 1))
    out, ref = run(default_conv_plan(cs))
    assert_close(out, ref, cs.k)


@pytest.mark.parametrize("residual", ["pre", "post"])
def test_epilogue_and_residual(residual):
    cs = conv_shape(2, 19, 37, (9, 10), (3, 3), (1, 1), (1, 1), (1, 1))
    out, ref = run(ConvPlan(cs, 5, 32, 15, False), residual=residual, epilogue=relu)
    assert_close(out, ref, cs.k)


@pytest.mark.parametrize("residual", ["pre", "post"])
@pytest.mark.parametrize("padded", [False, True])
def test_optional_residual_serves_both_callers(residual, padded):
    """One function for a convolution with a residual and one without (conv_ops: the
    second passes null): with it, the residual kernel's result; without, the plain
    kernel's, bit for bit (the masked load gives -0.0, which adds nothing)."""
    cs = conv_shape(2, 19, 37, (9, 10), (3, 3), (1, 1), (1, 1), (1, 1))
    plan = ConvPlan(cs, 5 if not padded else 10, 32, 90 if padded else 15, padded)
    out, ref = run(plan, residual=residual, epilogue=None)
    gen = torch.Generator().manual_seed(5)
    x = torch.randn(cs.n, *cs.ins, cs.cg, generator=gen)
    w = pack_conv_weight(torch.randn(cs.og, cs.cg, *cs.kernel, generator=gen), plan)
    b, res = torch.randn(cs.og, generator=gen), torch.randn(out.shape, generator=gen)
    res[0, 0, 0, 0] = -0.0
    shared = compile_conv(plan, bias=True, residual=residual, optional_residual=True)
    plain, alone = (
        compile_conv(plan, bias=True),
        compile_conv(plan, bias=True, residual=residual),
    )
    want, got = torch.empty_like(out), torch.empty_like(out)
    plain(want, x, w, b)
    shared(got, x, w, b, None)
    assert torch.equal(got, want) and torch.equal(got.signbit(), want.signbit())
    alone(want, x, w, b, res)
    shared(got, x, w, b, res)
    assert torch.equal(got, want)


@st.composite
def plans(draw) -> ConvPlan:
    kernel = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    cs = None
    while cs is None:
        cs = conv_shape(
            draw(st.integers(1, 3)),
            draw(st.integers(1, 21)),
            draw(st.integers(1, 70)),
            (draw(st.integers(1, 13)), draw(st.integers(1, 13))),
            kernel,
            (draw(st.integers(1, 3)), draw(st.integers(1, 3))),
            (draw(st.integers(0, 2)), draw(st.integers(0, 2))),
            dilation,
        )
    nr = 16 * draw(st.integers(1, 4))
    mr = draw(st.integers(1, min(28 // (nr // 16), 14)))
    blocks = draw(st.integers(1, 4))
    kc = draw(st.sampled_from([0, cs.cg, max(1, cs.cg // 2), cs.cg * kernel[1]]))
    padded = draw(st.booleans()) and dilation[1] == 1
    ow = cs.outs[1]
    if padded:  # tiles inside a row or of whole rows; blocks of whole rows
        mr = min(mr, ow) if mr <= ow or draw(st.booleans()) else ow * (mr // ow)
        mc = ow * max(1, -(-cs.outs[0] // blocks))
    else:
        mc = max(mr, -(-cs.spatial_out // blocks) // mr * mr)
    return ConvPlan(
        cs,
        mr,
        nr,
        mc,
        padded,
        draw(st.sampled_from(["m", "n"])),
        unroll=draw(st.integers(1, 4)),
        prefetch=draw(st.sampled_from([0, 1024])),
        kc=kc,
        ahead=draw(st.booleans()),
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plans(), st.booleans())
def test_drawn_shapes_and_tiles_match_torch(plan, bias):
    out, ref = run(plan, bias=bias)
    assert_close(out, ref, plan.cs.k)


def test_thirteen_row_tiles_in_place():
    """The in-place tile height ResNet-18's layer4 gets (13 rows x 2 vectors: 3 tiles
    and a 10-row edge over 49 positions), with a channel edge, a residual and the
    next panel's prefetch (``ahead``: it reads past the weights at the last panel)."""
    cs = conv_shape(1, 24, 40, (7, 7), (3, 3), (1, 1), (1, 1), (1, 1))
    plan = ConvPlan(cs, 13, 32, 49, False, prefetch=1024, ahead=True)
    out, ref = run(plan, residual="post")
    assert_close(out, ref, cs.k)


@pytest.mark.parametrize("mr", [14, 5])
def test_bordered_tiles_prefetch_the_next_panel(mr):
    """The bordered form with ``ahead`` (ResNet-50's 7x7 1x1 layers): tiles of two
    whole output rows, and tiles inside a row with a row edge (7 = 5 + 2), with a
    channel edge; the last panel's prefetch reads past the weights."""
    cs = conv_shape(1, 24, 40, (7, 7), (1, 1), (1, 1), (0, 0), (1, 1))
    plan = ConvPlan(cs, mr, 32, 49, True, prefetch=1024, ahead=True)
    out, ref = run(plan, bias=True)
    assert_close(out, ref, cs.k)


def test_items_can_be_run_in_any_split():
    """What the thread pool does: items in separate calls, in any order."""
    cs = conv_shape(2, 8, 40, (9, 7), (3, 3), (2, 1), (1, 1), (1, 1))
    plan = ConvPlan(cs, 4, 32, 12, False, "n")
    gen = torch.Generator().manual_seed(3)
    x, w = (
        torch.randn(2, 9, 7, 8, generator=gen),
        torch.randn(40, 8, 3, 3, generator=gen),
    )
    kernel = compile_conv(plan)
    whole = torch.zeros(2, *cs.outs, 40)
    kernel(whole, x, pack_conv_weight(w, plan))
    parts = torch.zeros_like(whole)
    for first in reversed(range(plan.items)):
        kernel(parts, x, pack_conv_weight(w, plan), first=first, count=1)
    assert torch.equal(whole, parts)


class ConvBlock(nn.Module):
    def __init__(self, c, o, k, s, p, d) -> None:
        super().__init__()
        self.conv = nn.Conv2d(c, o, k, s, p, d)
        self.skip = nn.Conv2d(c, o, k, s, p, d, bias=False)

    def forward(self, x):
        return torch.relu(self.conv(x) + self.skip(x))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(1, 2),
    st.integers(1, 24),
    st.integers(1, 40),
    st.integers(3, 12),
    st.integers(1, 3),
    st.integers(1, 2),
    st.integers(0, 1),
    st.integers(1, 2),
    st.integers(1, 2),
)
def test_compiled_conv_blocks_match_eager(n, c, o, size, k, s, p, d, threads):
    if (size + 2 * p - d * (k - 1) - 1) // s + 1 < 1:
        return
    torch.manual_seed(size * 31 + c)
    model = ConvBlock(c, o, k, s, p, d).eval()
    x = torch.randn(n, c, size, size + 1)
    compiled = cuvil.compile(model, [x], options={"num_threads": threads})
    assert "cuvil_conv" in compiled.llvm_ir() and "im2col" not in compiled.llvm_ir()
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-5)


class Inverted(nn.Module):
    """MobileNet's block: 1x1 expand, depthwise, 1x1 project, skip."""

    def __init__(self, c, k, s, p, d) -> None:
        super().__init__()
        self.expand = nn.Conv2d(c, 2 * c, 1)
        self.dw = nn.Conv2d(2 * c, 2 * c, k, s, p, d, groups=2 * c)
        self.bn = nn.BatchNorm2d(2 * c)
        self.project = nn.Conv2d(2 * c, c, 1)
        self.skip = s == 1 and (k - 1) * d == 2 * p

    def forward(self, x):
        y = self.project(
            nn.functional.relu6(self.bn(self.dw(torch.relu(self.expand(x)))))
        )
        return y + x if self.skip else y


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(1, 2),
    st.integers(1, 40),
    st.integers(2, 11),
    st.sampled_from([3, 5]),
    st.integers(1, 2),
    st.integers(1, 2),
    st.integers(1, 2),
)
def test_depthwise_blocks_match_eager(n, c, size, k, s, d, threads):
    p = (k - 1) * d // 2
    if (size + 2 * p - d * (k - 1) - 1) // s + 1 < 1:
        return
    torch.manual_seed(c * 7 + size)
    model = Inverted(c, k, s, p, d).eval()
    x = torch.randn(n, c, size, size + 2)
    compiled = cuvil.compile(model, [x], options={"num_threads": threads})
    assert "cuvil_dwconv" in compiled.llvm_ir()
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-5)


class SqueezeExcite(nn.Module):
    """EfficientNet's block tail: the squeeze (global pooling) and the excitation
    scale stay channels-last (no relayout of the whole activation)."""

    def __init__(self, c: int, pool: int) -> None:
        super().__init__()
        self.dw = nn.Conv2d(c, c, 3, padding=1, groups=c)
        self.pool = nn.AdaptiveAvgPool2d(pool)
        self.down, self.up = nn.Conv2d(c, 8, 1), nn.Conv2d(8, c, 1)

    def forward(self, x):
        y = nn.functional.silu(self.dw(x))
        s = torch.sigmoid(self.up(nn.functional.silu(self.down(self.pool(y)))))
        return y * s if s.shape[-1] == 1 else y[..., : s.shape[-2], : s.shape[-1]] * s


@pytest.mark.parametrize("pool", [1, 2])
def test_squeeze_excite_runs_channels_last(pool):
    torch.manual_seed(pool)
    model = SqueezeExcite(24, pool).eval()
    x = torch.randn(2, 24, 9, 10)
    compiled = cuvil.compile(model, [x])
    pools = [op for op in compiled.module.main.ops if "adaptive_avg_pool" in op.name]
    assert pools and all(op.operands[0].type.layout == "nhwc" for op in pools)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-5)
