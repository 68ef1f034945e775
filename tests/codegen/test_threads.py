"""num_threads > 1 splits large GEMMs over POSIX threads and computes the same results."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

import cuvil
from cuvil.codegen.parallel import PARALLEL_MIN_FLOPS


class ConvThenLinear(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(16, 36, 3, padding=1)
        self.fc = nn.Linear(36, 300)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        return self.fc(y.flatten(2).transpose(1, 2))  # [1, 900, 36] @ [36, 300]


@pytest.mark.parametrize("threads", [2, 3])
def test_threaded_gemms_match_eager(threads):
    torch.manual_seed(0)
    model = ConvThenLinear().eval()
    x = torch.randn(1, 16, 30, 30)
    assert 2 * 36 * 16 * 9 * 900 >= PARALLEL_MIN_FLOPS  # the conv is split
    compiled = cuvil.compile(model, [x], options={"num_threads": threads})
    assert "pthread_create" in compiled.llvm_ir()
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-5)


def test_small_gemms_stay_on_one_thread():
    compiled = cuvil.compile(
        nn.Linear(8, 4), [torch.randn(2, 8)], options={"num_threads": 2}
    )
    assert "pthread_create" not in compiled.llvm_ir()


def test_num_threads_must_be_a_positive_int():
    with pytest.raises(cuvil.CuvilError, match="num_threads=0"):
        cuvil.compile(nn.Linear(8, 4), [torch.randn(2, 8)], options={"num_threads": 0})


@pytest.mark.parametrize("bias", [True, False])
def test_one_row_products_split_by_columns(bias):
    """A classifier head (1 x 1000 x 512): no rows to split, column panels instead."""
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(512, 1000, bias=bias), nn.ReLU()).eval()
    x = torch.randn(1, 512)
    compiled = cuvil.compile(model, [x], options={"num_threads": 2})
    assert "_cols1000" in compiled.llvm_ir()
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-5)


_POOLS = [
    # (input shape, pool, conv first: a channels-last input)
    ((1, 64, 112, 112), nn.MaxPool2d(3, 2, 1), True),  # ResNet's stem pool
    ((3, 16, 64, 64), nn.MaxPool2d(3, 1, 1), False),  # rows = the batch
    ((1, 24, 150, 150), nn.AvgPool2d(3, 2, 1), True),
    ((2, 16, 99, 101), nn.AvgPool2d(3, 1, 1, True, False), False),
    ((1, 32, 200, 66), nn.MaxPool2d((3, 2), (2, 1), (1, 0), ceil_mode=True), True),
]


@pytest.mark.parametrize(("shape", "pool", "conv"), _POOLS, ids=range(len(_POOLS)))
def test_large_pools_split_by_rows(shape, pool, conv):
    """A pooling kernel over PARALLEL_MIN_FLOPS runs its rows on the pool
    (rowsplit.py): the same results as eager, whatever the layout and the edges."""
    torch.manual_seed(2)
    layers = [nn.Conv2d(shape[1], shape[1], 1)] if conv else []
    model = nn.Sequential(*layers, pool).eval()
    x = torch.randn(*shape)
    compiled = cuvil.compile(model, [x], options={"num_threads": 2})
    assert "_rows" in compiled.llvm_ir()
    with torch.no_grad():
        expected = model(x)
    for _ in range(3):  # call after call: the workers join in on later calls
        torch.testing.assert_close(compiled(x), expected, rtol=1e-4, atol=1e-5)


@settings(max_examples=12, deadline=None)
@given(
    n=st.integers(1, 3),
    c=st.integers(1, 40),
    h=st.integers(8, 90),
    w=st.integers(8, 90),
    k=st.integers(1, 4),
    s=st.integers(1, 3),
    avg=st.booleans(),
    threads=st.integers(2, 3),
)
def test_split_pools_match_eager_on_drawn_shapes(n, c, h, w, k, s, avg, threads):
    pool = nn.AvgPool2d(k, s, k // 2) if avg else nn.MaxPool2d(k, s, k // 2)
    model = nn.Sequential(pool).eval()
    x = torch.randn(n, c, h, w)
    compiled = cuvil.compile(model, [x], options={"num_threads": threads})
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("pool", [nn.MaxPool2d(2), nn.AvgPool2d(3, 1, 1)], ids=str)
def test_pools_of_an_empty_batch_write_nothing(pool, threads):
    """A dim of extent 0 keeps its loop (rowsplit.output_nest): indexed at 0 like a
    dim of extent 1, the kernel wrote past the empty output (OpInfo: a segfault)."""
    x = torch.randn(0, 3, 8, 8)
    compiled = cuvil.compile(
        nn.Sequential(pool).eval(), [x], options={"num_threads": threads}
    )
    torch.testing.assert_close(compiled(x), pool(x))
