"""The model zoo tier: popular architectures nobody here wrote, compiled and compared with
eager (float32: rtol 1e-4, atol 1e-5).

Default tier: every Hugging Face architecture at O3 (with a padding mask where it takes
one), ResNet-18 and AlexNet. Slow tier: the text models without a mask, everything at O0,
and the larger torchvision models (MobileNet-V3 and SqueezeNet too: 35 s and 10 s). Each case compiles once (module-scoped cache), so a failure names the model, the
mask and the opt level.
"""

from __future__ import annotations

import pytest
import torch
from models import SPECS, TORCHVISION, Spec, case

import cuvil

RTOL, ATOL = 1e-4, 1e-5
SMALL_VISION = {"resnet18", "alexnet"}


def _cases(specs: list[Spec], slow_nomask: bool = False) -> list:
    """Each spec, with and without a mask where it takes one; `slow_nomask`: the
    unmasked case of a masked model in the slow tier (the masked one covers its path)."""
    return [
        pytest.param(
            spec,
            mask,
            id=f"{spec.name}-{'mask' if mask else 'nomask'}",
            marks=[pytest.mark.slow]
            if slow_nomask and spec.masked and not mask
            else [],
        )
        for spec in specs
        for mask in ((False, True) if spec.masked else (False,))
    ]


def _check(spec: Spec, mask: bool, opt: str) -> None:
    model, xs = case(spec, mask=mask)
    with torch.no_grad():
        want = model(*xs)
    # auto: torch.fx cannot trace these models' control flow; export can
    compiled = cuvil.compile(model, xs, options={"opt_level": opt, "frontend": "auto"})
    got = compiled(*xs)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert want.abs().max() > 1e-3, (
        "degenerate reference: the comparison would be vacuous"
    )
    torch.testing.assert_close(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize(("spec", "mask"), _cases(SPECS, slow_nomask=True))
def test_hf_matches_eager_at_o3(spec, mask):
    _check(spec, mask, "O3")


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "mask"), _cases(SPECS))
def test_hf_matches_eager_at_o0(spec, mask):
    _check(spec, mask, "O0")


@pytest.mark.parametrize(
    ("spec", "mask"), _cases([s for s in TORCHVISION if s.name in SMALL_VISION])
)
def test_torchvision_matches_eager_at_o3(spec, mask):
    _check(spec, mask, "O3")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("spec", "mask"), _cases([s for s in TORCHVISION if s.name not in SMALL_VISION])
)
def test_larger_torchvision_matches_eager_at_o3(spec, mask):
    _check(spec, mask, "O3")
