"""num_threads splits the int8 and bf16 GEMMs / convolutions (qgemm.qgemm_call) like the
float ones: rows in blocks of the tile height over the thread pool.

Integer sums are exact and each output row's epilogue is the same arithmetic whichever
block computes it, so a 2- or 3-thread int8 result equals the 1-thread one bit for bit;
bf16 rows are summed in the same order too. The split is shown by the generated code:
one ``<gemm>_rows<M>`` block function per split GEMM, called through the pool.
"""

from __future__ import annotations

import re

import pytest
import torch
from torch import nn

import cuvil
from cuvil.codegen.parallel import PARALLEL_MIN_FLOPS
from cuvil.codegen.qgemm import plan_qgemm, split_qrows


class _ConvLinear(nn.Module):
    """A 3x3 conv (im2col), a 1x1 conv (reads its nhwc input), a linear over positions."""

    def __init__(self) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(16, 48, 3, padding=1)
        self.c2 = nn.Conv2d(48, 64, 1)
        self.fc = nn.Linear(64, 200)

    def forward(self, x):
        y = torch.relu(self.c2(torch.relu(self.c1(x))))
        return self.fc(y.flatten(2).transpose(1, 2))  # [1, 400, 64] @ [64, 200]


def _split_gemms(compiled) -> int:
    """The block functions (not their pool thunks, ``..._task``)."""
    return len(
        re.findall(r"define [^@]*@\"?cuvil_\w+_rows\d+\"?\(", compiled.llvm_ir())
    )


@pytest.fixture(scope="module")
def model_and_data():
    torch.manual_seed(0)
    model = _ConvLinear().eval()
    x = torch.randn(1, 16, 20, 20)
    calib = [torch.randn(1, 16, 20, 20) for _ in range(2)]
    return model, x, calib


@pytest.mark.parametrize(
    "quantize",
    [
        "int8",
        {"int8": True, "dynamic": True},
        "bf16",
    ],
    ids=["int8", "dynamic", "bf16"],
)
def test_threaded_quantized_kernels_equal_one_thread_bit_for_bit(
    model_and_data, quantize
):
    model, x, calib = model_and_data
    data = {"calibration_data": calib} if quantize == "int8" else {}
    outs, splits = [], []
    for threads in (1, 2):
        compiled = cuvil.compile(
            model, [x], quantize=quantize, options={"num_threads": threads}, **data
        )
        outs.append(compiled(x))
        splits.append(_split_gemms(compiled))
    assert splits[0] == 0
    # static int8 / bf16: both convolutions and the linear; dynamic: the linear only
    assert splits[1] == (1 if isinstance(quantize, dict) else 3)
    assert torch.equal(outs[0], outs[1])


def test_rows_split_in_tile_multiples_above_the_threshold():
    for isa, mr in (("avx512", 6), ("amx", 32), ("portable", 6)):
        plan = plan_qgemm(400, 64, 144, isa)
        assert 2 * 400 * 64 * 144 >= PARALLEL_MIN_FLOPS
        per = split_qrows(plan, 2)
        assert per % mr == 0 and per < 400 and -(-400 // per) >= 2
        assert split_qrows(plan, 1) == 400
    small = plan_qgemm(8, 16, 16, "avx512")
    assert split_qrows(small, 4) == 8  # too little work to share


@pytest.mark.slow
@pytest.mark.parametrize("isa", ["portable", "avx512", "amx"])
def test_each_instruction_set_splits_to_the_same_bits(model_and_data, isa):
    from cuvil.codegen.cpu import resolve_isa

    try:
        resolve_isa("int8", isa)
    except cuvil.CuvilError as e:
        pytest.skip(str(e))
    model, x, calib = model_and_data
    outs = [
        cuvil.compile(
            model,
            [x],
            quantize={"int8": True, "isa": isa},
            calibration_data=calib,
            options={"num_threads": threads},
        )(x)
        for threads in (1, 3)
    ]
    assert torch.equal(outs[0], outs[1])
