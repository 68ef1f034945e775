"""The decomposition fallback: ops without a Cuvil rule lower through PyTorch's own
decompositions, match eager, keep the node's location, and refuse cleanly when blocked."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from decomp_cases import CASES
from lowering_checks import FRONTENDS, check_lowering, randn, wrap

import cuvil
from cuvil.errors import UnsupportedOpError
from cuvil.frontend import LOWERINGS, lower
from cuvil.frontend.fx import from_fx

aten = torch.ops.aten


def _inputs(name: str) -> list[torch.Tensor]:
    return [randn(*s) for s in CASES[name][1]]


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_an_op_without_a_rule_lowers_through_its_decomposition(name, frontend):
    fn, _ = CASES[name]
    inputs = _inputs(name)
    check_lowering(fn, inputs, frontend)  # matches eager (interpreter)
    if frontend == "fx":  # and it is the fallback that lowers it
        with pytest.raises(UnsupportedOpError):
            from_fx(wrap(fn, len(inputs)), inputs, decompose=False)


class Mixed(torch.nn.Module):
    def forward(self, x, y):
        h = F.hardshrink(x) * 2
        return torch.lerp(h, y, 0.25) + torch.logsumexp(y, 1, keepdim=True)


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_every_decomposed_op_keeps_the_nodes_location(frontend):
    module = lower(Mixed(), (randn(3, 4), randn(3, 4)), frontend=frontend)
    by_node: dict[str, set] = {}
    for op in module.main.ops:
        by_node.setdefault(op.loc.node, set()).add((op.loc.file, op.loc.line))
    lerp = next(n for n in by_node if n.startswith("lerp"))
    assert len([op for op in module.main.ops if op.loc.node == lerp]) >= 4
    for node in ("hardshrink", lerp, "logsumexp"):
        ((file, line),) = by_node[node]  # one source line for all of a node's ops
        assert file.endswith("test_decompose.py") and line > 0
    assert set(module.fx_values) >= {"hardshrink", lerp, "logsumexp"}


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_a_model_with_decomposed_ops_compiles_and_matches_eager(frontend):
    model, inputs = Mixed(), (randn(3, 4), randn(3, 4))
    compiled = cuvil.compile(model, inputs, options={"frontend": frontend})
    torch.testing.assert_close(compiled(*inputs), model(*inputs), rtol=1e-4, atol=1e-5)


def test_a_blocked_decomposition_names_the_node_the_op_and_the_inner_op(registry):
    del LOWERINGS[aten.abs]  # hardshrink decomposes into abs, le, scalar_tensor, where
    with pytest.raises(UnsupportedOpError) as info:
        lower(wrap(F.hardshrink, 1), (randn(3, 4),), frontend="export")
    e = info.value
    assert e.target == "aten.hardshrink.default" and e.node == "hardshrink"
    assert "aten.abs.default blocks" in e.hint and "aten.where.self" in e.hint
    assert e.where.startswith("tests/frontend/lowering_checks.py:")


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_decompose_off_gives_todays_error(frontend):
    model, inputs = wrap(F.hardshrink, 1), (randn(3, 4),)
    with pytest.raises(UnsupportedOpError, match="hardshrink") as info:
        cuvil.compile(model, inputs, options={"frontend": frontend, "decompose": False})
    assert info.value.hint == "see docs/OPS.md for the supported ops"
    assert info.value.node == "hardshrink"
    assert info.value.where.startswith("tests/frontend/lowering_checks.py:")


def test_an_op_pytorch_does_not_decompose_keeps_the_plain_error():
    with pytest.raises(UnsupportedOpError, match="aten.digamma") as info:
        lower(wrap(torch.digamma, 1), (randn(3, 4),), frontend="export")
    assert info.value.hint == "see docs/OPS.md for the supported ops"


def test_a_random_decomposition_is_refused():
    fn = lambda x: F.rrelu(x, training=True)  # noqa: E731
    with pytest.raises(UnsupportedOpError, match="random|rrelu"):
        lower(wrap(fn, 1), (randn(3, 4),), frontend="fx")


@pytest.mark.parametrize(
    "draw",
    [
        lambda: torch.rand(2, 4),
        lambda: torch.randn(2, 4),
        lambda: torch.randint(0, 5, (2, 4)).float(),
        lambda: torch.randperm(8).reshape(2, 4).float(),
    ],
    ids=["rand", "randn", "randint", "randperm"],
)
def test_a_random_draw_under_export_is_refused_not_folded(draw):
    """export records aten.rand.default (not torch.rand); folding it into a constant
    made every call of a compiled ViT-MAE draw the same mask."""
    fn = lambda x: x + draw()  # noqa: E731
    with pytest.raises(UnsupportedOpError, match="aten.rand"):
        lower(wrap(fn, 1), (randn(2, 4),), frontend="export")


def test_an_in_place_op_without_a_rule_is_not_decomposed():
    fn = lambda x: (x * 1).hardshrink().lerp_(x, 0.5)  # noqa: E731
    with pytest.raises(UnsupportedOpError, match="lerp_") as info:
        lower(wrap(fn, 1), (randn(3, 4),), frontend="fx")
    assert "in-place" in info.value.hint
