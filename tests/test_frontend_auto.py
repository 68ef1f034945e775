"""frontend="auto": torch.export first, torch.fx when export fails."""

from __future__ import annotations

import pytest
import torch

import cuvil


class Plain(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) + 1


class NeedsFx(torch.nn.Module):
    """A data-dependent Python branch: neither torch.export nor torch.fx captures it."""

    def forward(self, x):
        if x.sum() > 0:  # data-dependent: export cannot decide it
            return x * 2
        return x


def test_auto_uses_export_and_says_so():
    cm = cuvil.compile(Plain(), [torch.randn(2, 3)], options={"frontend": "auto"})
    assert cm.options.frontend == "auto"
    assert cm.frontend == "export" and cm.frontend_notes == []
    assert "frontend export" in cm.info and "frontend export" in repr(cm)


def test_explicit_frontends_unchanged():
    for name in ("fx", "export"):
        cm = cuvil.compile(Plain(), [torch.randn(2, 3)], options={"frontend": name})
        assert cm.frontend == name and cm.frontend_notes == []


def test_both_fail_raises_a_clean_cuvil_error_naming_the_other():
    x = torch.randn(2, 3)
    with pytest.raises(cuvil.CuvilError) as e:
        cuvil.compile(NeedsFx(), [x], options={"frontend": "auto"})
    assert "frontend 'auto'" in str(e.value)
    assert "Traceback" not in str(e.value)


class Unsupported(torch.nn.Module):
    def forward(self, x):
        return torch.special.bessel_j0(x)


def test_unsupported_op_stays_the_fx_error():
    x = torch.randn(2, 3)
    with pytest.raises(cuvil.UnsupportedOpError) as fx:
        cuvil.compile(Unsupported(), [x], options={"frontend": "fx"})
    with pytest.raises(cuvil.UnsupportedOpError) as auto:
        cuvil.compile(Unsupported(), [x], options={"frontend": "auto"})
    assert auto.value.message == fx.value.message and auto.value.where == fx.value.where
    assert str(auto.value).startswith(str(fx.value).split("\n  hint:")[0])
