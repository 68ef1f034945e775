"""Fields of torch's multi-result ops (torch.return_types): `torch.sort(x).values`,
`torch.max(x, 1).indices`, `torch.topk(x, k).values` under both frontends."""

from __future__ import annotations

import pytest
import torch

from cuvil.frontend import lower
from cuvil.options import CompileOptions
from cuvil.pipeline import compile_module


class Fields(torch.nn.Module):
    def forward(self, x):
        ordered = torch.sort(x, dim=-1, descending=True).values
        arg = torch.max(x, dim=-1).indices
        top = torch.topk(x, 3).values
        low = torch.aminmax(x, dim=-1).min
        return ordered.softmax(-1), arg, top, low


@pytest.mark.parametrize("frontend", ["fx", "export"])
def test_result_fields_are_read_by_name(frontend):
    x = torch.randn(2, 8)
    compiled = compile_module(
        lower(Fields(), [x], frontend=frontend), CompileOptions(frontend=frontend)
    )
    for got, want in zip(compiled(x), Fields()(x), strict=True):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
