"""num_threads > 1 splits large GEMMs over POSIX threads and computes the same results."""

from __future__ import annotations

import pytest
import torch
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
