"""Values computed from constants alone are folded at capture into module params
(LoweringContext.constant): each folded value keeps its own param."""

from __future__ import annotations

import gc

import torch
from torch import nn

from cuvil.frontend import capture
from cuvil.frontend.context import LoweringContext


class _TwoConstants(nn.Module):
    def forward(self, x):
        ones = torch.ones(4, 7, 2)
        padded = torch.ops.aten.replication_pad1d(ones, [2, 0])  # [4, 7, 4]
        pooled = nn.functional.adaptive_avg_pool1d(torch.erf(ones), 8)  # [4, 7, 8]
        return x + 1, padded, pooled


def test_two_folded_constants_under_export_are_two_params():
    # fuzz seed 7000745: the second folded constant came back as the first
    x = torch.randn(1)
    module = capture(_TwoConstants(), [x], "export").module
    shapes = [list(v.type.shape) for v in module.main.outputs]
    assert shapes == [[1], [4, 7, 4], [4, 7, 8]]


def test_a_folded_constant_never_takes_a_name_the_module_holds():
    module = capture(_TwoConstants(), [torch.randn(1)], "fx").module
    cx = LoweringContext(module, module.main)
    mine = torch.zeros(64, 64)
    module.add_param("_const1", mine)
    values = [cx.constant(torch.full((64, 64), float(k))) for k in range(3)]
    gc.collect()
    names = [v.owner.attrs["name"] for v in values]
    assert "_const1" not in names and len(set(names)) == 3
    assert module.param_data["_const1"] is mine
