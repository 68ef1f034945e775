"""The last Core ATen ops Cuvil lowers, compiled to native code and checked against eager
through both frontends: integer bitwise ops, scatter_reduce (every mode, with and without
the destination's values), masked_scatter, 3-d average pooling (separable), cdist/pdist,
as_strided over the input's eager layout, and embedding_bag (every mode, offsets or 2-d
bags, padding_idx, per_sample_weights). Each model returns many results so that one
compile covers a family; float32 tolerances rtol 1e-4, atol 1e-5, integers exact."""

from __future__ import annotations

import itertools

import pytest
import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch import nn

import cuvil
from cuvil.errors import CuvilRuntimeError, UnsupportedOpError

FRONTENDS = ["fx", "export"]
GEN = torch.Generator().manual_seed(0)


def randn(*shape):
    return torch.randn(*shape, generator=GEN)


def randint(hi, *shape):
    return torch.randint(0, hi, shape, generator=GEN)


def check(model: nn.Module, inputs, frontend: str, **options):
    model.eval()
    cm = cuvil.compile(model, list(inputs), options={"frontend": frontend, **options})
    with torch.no_grad():
        want = model(*inputs)
    got = cm(*inputs)
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape, (i, g.dtype, g.shape, w.shape)
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5, msg=f"result {i}")
    return cm


class Bitwise(nn.Module):
    def forward(self, a, b, m, n):
        return (a & b) ^ (a | 5), ~a, a ^ b, m ^ n, ~m, (m & n) | n


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_bitwise_integer_and_bool(frontend):
    a, b = torch.randint(-99, 99, (4, 5), generator=GEN), torch.randint(-99, 99, (5,))
    m, n = randn(4, 5) > 0, randn(4, 5) > 0
    check(Bitwise(), (a, b, m, n), frontend)


def lambda_module(fn):
    class M(nn.Module):
        def forward(self, x):
            return fn(x)

    return M()


REDUCES = ["sum", "prod", "mean", "amax", "amin"]


class ScatterReduce(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x, index, src):
        return tuple(
            torch.scatter_reduce(x, self.dim, index, src, r, include_self=inc)
            for r, inc in itertools.product(REDUCES, (True, False))
        )


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_scatter_reduce_every_mode(frontend, dtype):
    x, src = (randn(4, 5) * 5).to(dtype), (randn(3, 4) * 5).to(dtype)
    check(ScatterReduce(1), (x, randint(5, 3, 4), src), frontend)


class MaskedScatter(nn.Module):
    def forward(self, x, mask, source):
        return x.masked_scatter(mask, source), x.masked_scatter(mask[0], source)


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_masked_scatter(frontend):
    check(MaskedScatter(), (randn(3, 4), randn(3, 4) > 0, randn(5, 4)), frontend)


def test_masked_scatter_with_too_small_a_source_raises_at_run_time():
    x, mask, source = randn(3, 4), torch.zeros(3, 4, dtype=torch.bool), randn(2)
    cm = cuvil.compile(MaskedScatter(), [x, mask, source])
    mask[:, :2] = True  # 6 positions, 2 source elements: torch raises too
    with pytest.raises(CuvilRuntimeError):
        cm(x, mask, source)


class Pool3d(nn.Module):
    def __init__(self, kwargs: dict, output_size) -> None:
        super().__init__()
        self.kwargs, self.output_size = kwargs, output_size

    def forward(self, x):
        return F.avg_pool3d(x, **self.kwargs), F.adaptive_avg_pool3d(
            x, self.output_size
        )


POOLS = [
    dict(kernel_size=(3, 2, 2), stride=(2, 1, 2), padding=(1, 0, 1)),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=2, divisor_override=3),
]


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_pool3d_separable(frontend):
    x = randn(2, 3, 5, 6, 7)
    for kwargs, size in zip(POOLS, [(2, 3, 4), (None, 2, 5), 1]):
        check(Pool3d(kwargs, size), (x,), frontend)


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
@given(
    shape=st.tuples(*(st.integers(1, 3),) * 2, *(st.integers(3, 7),) * 3),
    k=st.integers(1, 3),
    ceil=st.booleans(),
    include_pad=st.booleans(),
)
def test_pool3d_drawn_shapes(shape, k, ceil, include_pad):
    kwargs = dict(
        kernel_size=k,
        stride=2,
        padding=k // 2,
        ceil_mode=ceil,
        count_include_pad=include_pad,
    )
    check(Pool3d(kwargs, (2, 1, 3)), (randn(*shape),), "fx")


class Distances(nn.Module):
    def forward(self, a, b, c):
        ps = (0.0, 1.0, 2.0, 3.5, float("inf"))
        return (*(torch.cdist(a, b, p=p) for p in ps), *(F.pdist(c, p=p) for p in ps))


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_cdist_and_pdist(frontend):
    # 30 rows: torch's matmul shortcut for p=2 (less accurate) still within tolerance
    check(Distances(), (randn(2, 5, 3), randn(2, 30, 3), randn(6, 4)), frontend)


class AsStrided(nn.Module):
    def forward(self, x):
        t = x.t()  # eager's as_strided reads the storage: the transpose's strides count
        return (
            torch.as_strided(x, (3, 3), (1, 2)),
            torch.as_strided(t, (2, 2), (1, 2)),
            torch.as_strided(x[1:], (3,), (6,)),
            torch.as_strided(x + 1, (2, 5), (6, 1), 1),
        )


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_as_strided_follows_the_eager_layout(frontend):
    check(AsStrided(), (randn(4, 6),), frontend)


def test_as_strided_outside_the_input_is_refused():
    m = lambda_module(lambda x: torch.as_strided(x[1:], (2, 2), (1, 2), 0))
    with pytest.raises(UnsupportedOpError, match="reads memory outside the input"):
        cuvil.compile(m, [randn(4, 6)])


class Bags(nn.Module):
    def __init__(self, mode: str, padding_idx) -> None:
        super().__init__()
        self.weight = nn.Parameter(randn(10, 3))
        self.mode, self.padding_idx = mode, padding_idx

    def forward(self, flat, offsets, last_offsets, fixed):
        kw = dict(mode=self.mode, padding_idx=self.padding_idx)
        return (
            F.embedding_bag(flat, self.weight, offsets, **kw),
            F.embedding_bag(
                flat, self.weight, last_offsets, include_last_offset=True, **kw
            ),
            F.embedding_bag(fixed, self.weight, **kw),
        )


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("mode,padding_idx", [("sum", None), ("mean", 4), ("max", -1)])
def test_embedding_bag(frontend, mode, padding_idx):
    flat = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
    offsets, last = torch.tensor([0, 4, 4, 6]), torch.tensor([0, 4, 4, 6, 8])
    fixed = torch.tensor([[1, 4, 9, 0], [4, 4, 4, 4], [2, 3, 9, 8]])
    check(Bags(mode, padding_idx), (flat, offsets, last, fixed), frontend)


class WeightedBag(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bag = nn.EmbeddingBag(10, 3, mode="sum")

    def forward(self, flat, offsets, weights):
        return self.bag(flat, offsets, per_sample_weights=weights)


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_embedding_bag_module_with_per_sample_weights(frontend):
    flat, offsets = torch.tensor([1, 2, 4, 5, 4, 3]), torch.tensor([0, 2, 2])
    check(WeightedBag(), (flat, offsets, torch.rand(6, generator=GEN)), frontend)
