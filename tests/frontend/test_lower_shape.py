"""Shape and data-movement ops (view/reshape, permute, cat/stack, split/chunk, indexing,
expand, squeeze) and size queries lower to IR that runs like eager PyTorch."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes
from lowering_checks import FRONTENDS, check_lowering, randint, randn, wrap
from torch import nn

from cuvil.errors import UnsupportedOpError
from cuvil.frontend import lower


def case(id: str, fn, *inputs):
    return pytest.param(fn, inputs, id=id)


RESHAPE = [
    case("reshape", lambda x: x.reshape(4, 6), randn(2, 3, 4)),
    case("reshape-tuple", lambda x: torch.reshape(x, (3, -1)), randn(2, 3, 4)),
    case("view", lambda x: x.view(-1), randn(2, 3, 4)),
    case("view-sizes-from-shape", lambda x: x.view(x.shape[0], -1), randn(2, 3, 4)),
    case(
        "view-size-method",
        lambda x: x.view(x.size(0) * x.size(1), x.size(-1)),
        randn(2, 3, 4),
    ),
    case("view-as", lambda x, y: x.view_as(y), randn(2, 6), randn(3, 4)),
    case("reshape-as", lambda x, y: x.reshape_as(y), randn(12), randn(3, 4)),
    case("reshape-to-0d", lambda x: x.reshape(()), randn(1, 1)),
    case("reshape-from-0d", lambda x: x.reshape(1, 1), randn()),
    case("flatten", lambda x: torch.flatten(x), randn(2, 3, 4)),
    case("flatten-1", lambda x: torch.flatten(x, 1), randn(2, 3, 4)),
    case("flatten-mid", lambda x: x.flatten(1, 2), randn(2, 3, 4, 5)),
    case("flatten-neg", lambda x: x.flatten(-2), randn(2, 3, 4)),
    case("flatten-0d", lambda x: x.flatten(), randn()),
    case("unflatten", lambda x: x.unflatten(1, (2, 3)), randn(4, 6)),
    case("permute", lambda x: x.permute(2, 0, 1), randn(2, 3, 4)),
    case("permute-tuple-neg", lambda x: torch.permute(x, (-1, 0, 1)), randn(2, 3, 4)),
    case("transpose", lambda x: x.transpose(0, 1), randn(2, 3)),
    case("transpose-neg", lambda x: torch.transpose(x, -1, -3), randn(2, 3, 4)),
    case("swapaxes", lambda x: x.swapaxes(1, 2), randn(2, 3, 4)),
    case("T", lambda x: x.T, randn(2, 3)),
    case("contiguous", lambda x: x.transpose(0, 1).contiguous().view(-1), randn(2, 3)),
    case("unsqueeze", lambda x: x.unsqueeze(0), randn(2, 3)),
    case("unsqueeze-neg", lambda x: torch.unsqueeze(x, -1), randn(2, 3)),
    case("unsqueeze-mid", lambda x: x.unsqueeze(1), randn(2, 3)),
    case("squeeze-all", lambda x: x.squeeze(), randn(1, 3, 1, 2)),
    case("squeeze-dim", lambda x: torch.squeeze(x, 2), randn(1, 3, 1, 2)),
    case("squeeze-neg-dim", lambda x: x.squeeze(-1), randn(3, 1)),
    case("squeeze-non-1", lambda x: x.squeeze(1), randn(1, 3)),
    case("squeeze-dims", lambda x: x.squeeze((0, 2)), randn(1, 3, 1)),
    case("expand", lambda x: x.expand(3, 4), randn(3, 1)),
    case("expand-neg1", lambda x: x.expand(2, -1, 4), randn(3, 1)),
    case("expand-as", lambda x, y: x.expand_as(y) + y, randn(1, 4), randn(3, 4)),
    case("expand-size0", lambda x: x.expand(0, 4), randn(1, 4)),
]

JOIN_SPLIT = [
    case("cat", lambda x, y: torch.cat([x, y]), randn(2, 3), randn(4, 3)),
    case("cat-dim1", lambda x, y: torch.cat((x, y), dim=1), randn(2, 3), randn(2, 1)),
    case(
        "cat-neg-dim", lambda x, y: torch.cat([x, y, x], -1), randn(2, 3), randn(2, 2)
    ),
    case("cat-promote", lambda x, y: torch.cat([x, y]), randint(2, 3), randn(1, 3)),
    case("cat-size0", lambda x, y: torch.cat([x, y]), randn(0, 3), randn(2, 3)),
    case("concat", lambda x, y: torch.concat([x, y], dim=0), randn(1, 3), randn(2, 3)),
    case("stack", lambda x, y: torch.stack([x, y]), randn(2, 3), randn(2, 3)),
    case(
        "stack-neg", lambda x, y: torch.stack((x, y), dim=-1), randn(2, 3), randn(2, 3)
    ),
    case("stack-mid", lambda x, y: torch.stack([x, y, x], 1), randn(2, 3), randn(2, 3)),
    case("split", lambda x: torch.split(x, 2), randn(5, 3)),
    case("split-sizes", lambda x: x.split([1, 3, 1], dim=1), randn(2, 5)),
    case("split-neg-dim", lambda x: x.split(2, -1), randn(2, 5)),
    case("split-getitem", lambda x: x.split(2)[1] * 2, randn(5, 3)),
    case("chunk", lambda x: torch.chunk(x, 3), randn(6, 2)),
    case("chunk-uneven", lambda x: x.chunk(3, dim=1), randn(2, 7)),
    case("chunk-more-than-size", lambda x: x.chunk(4, -1), randn(2, 2)),
    case("unbind", lambda x: x.unbind(1), randn(2, 3)),
    case("narrow", lambda x: x.narrow(1, 1, 2), randn(2, 4)),
    case("select", lambda x: x.select(0, -1), randn(3, 4)),
    case("chunk-indexed", lambda x: x.chunk(2, -1)[0] - x.chunk(2, -1)[1], randn(3, 4)),
]

INDEXING = [
    case("int", lambda x: x[1], randn(3, 4)),
    case("neg-int", lambda x: x[-1], randn(3, 4)),
    case("two-ints", lambda x: x[1, -2], randn(3, 4)),
    case("slice", lambda x: x[1:3], randn(5, 4)),
    case("slice-step", lambda x: x[::2], randn(5, 4)),
    case("slice-step-offset", lambda x: x[1:5:3], randn(6, 4)),
    case("slice-neg", lambda x: x[-3:-1], randn(5, 4)),
    case("slice-neg-start", lambda x: x[:, -2:], randn(3, 5)),
    case("slice-past-end", lambda x: x[2:100], randn(5, 4)),
    case("slice-empty", lambda x: x[3:1], randn(5, 4)),
    case("slice-dim1-step", lambda x: x[:, 1::2], randn(3, 6)),
    case("int-and-slice", lambda x: x[0, 1:], randn(3, 4)),
    case("none", lambda x: x[None], randn(3, 4)),
    case("none-mid", lambda x: x[:, None, :], randn(3, 4)),
    case("none-end", lambda x: x[..., None], randn(3, 4)),
    case("ellipsis", lambda x: x[..., 1], randn(2, 3, 4)),
    case("ellipsis-mid", lambda x: x[0, ..., ::2], randn(2, 3, 4)),
    case("ellipsis-only", lambda x: x[...], randn(2, 3)),
    case("mixed", lambda x: x[None, -1, ..., 1:3, None], randn(2, 3, 4)),
    case("size1-dim", lambda x: x[:, 0], randn(3, 1)),
]


class ShapeModules(nn.Module):
    """nn.Flatten / nn.Unflatten / nn.Identity (call_module) and size arithmetic."""

    def __init__(self) -> None:
        super().__init__()
        self.flatten = nn.Flatten()
        self.unflatten = nn.Unflatten(1, (3, 4))
        self.identity = nn.Identity()

    def forward(self, x):
        b, c, h, w = x.shape
        y = self.flatten(x)
        y = self.unflatten(y[:, :12])
        return self.identity(y).reshape(b, -1) * (h * w), x.size(
            1
        ) + x.dim() + x.numel()


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("fn, inputs", RESHAPE + JOIN_SPLIT + INDEXING)
def test_lowered_shape_op_matches_eager(fn, inputs, frontend):
    check_lowering(fn, inputs, frontend)


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_shape_modules_and_size_queries_match_eager(frontend):
    check_lowering(_TensorOutputs(ShapeModules()), (randn(2, 3, 2, 4),), frontend)


class _TensorOutputs(nn.Module):
    """Folds the size queries into the tensor output (outputs must be tensors)."""

    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, x):
        y, n = self.inner(x)
        return y + n


@pytest.mark.parametrize("frontend", FRONTENDS)
def test_view_ops_that_change_nothing_emit_no_op(frontend):
    fn = lambda x: x.reshape(2, 3).permute(0, 1).squeeze().contiguous()[:, :]  # noqa: E731
    module = check_lowering(fn, (randn(2, 3),), frontend)
    assert module.main.ops == []


# ---- hypothesis: drawn shapes ------------------------------------------------------------------
_SETTINGS = settings(max_examples=12, deadline=None)
_shapes = array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=4)


@pytest.mark.parametrize("frontend", FRONTENDS)
@_SETTINGS
@given(shape=_shapes, data=st.data())
def test_permute_and_transpose_match_eager_on_drawn_shapes(frontend, shape, data):
    perm = data.draw(st.permutations(range(len(shape))))
    d0, d1 = (data.draw(st.integers(-len(shape), len(shape) - 1)) for _ in range(2))
    check_lowering(
        lambda x: x.permute(*perm).transpose(d0, d1), (randn(*shape),), frontend
    )


@pytest.mark.parametrize("frontend", FRONTENDS)
@_SETTINGS
@given(shape=_shapes, data=st.data())
def test_slicing_matches_eager_on_drawn_indices(frontend, shape, data):
    def bound():
        return st.one_of(st.none(), st.integers(-6, 6))

    index = []
    for _ in shape:
        start, stop = data.draw(bound()), data.draw(bound())
        step = data.draw(st.one_of(st.none(), st.integers(1, 3)))
        index.append(slice(start, stop, step))
    if data.draw(st.booleans()):
        index[data.draw(st.integers(0, len(shape) - 1))] = data.draw(st.integers(0, 0))
    if data.draw(st.booleans()):
        index.insert(data.draw(st.integers(0, len(index))), None)
    index = tuple(index)
    check_lowering(lambda x: x[index], (randn(*shape),), frontend)


@pytest.mark.parametrize("frontend", FRONTENDS)
@_SETTINGS
@given(shape=_shapes, data=st.data())
def test_cat_split_and_reshape_match_eager_on_drawn_shapes(frontend, shape, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    size = data.draw(st.integers(1, 3))
    other = list(shape)
    other[dim] = data.draw(st.integers(0, 3))

    n = -(-(shape[dim] + other[dim]) // size)  # FX cannot iterate over a traced tuple

    def fn(x, y):
        parts = torch.cat([x, y], dim).split(size, dim)
        return torch.cat([parts[i].sum(dim).reshape(-1) for i in range(n)])

    check_lowering(fn, (randn(*shape), randn(*other)), frontend)


@pytest.mark.parametrize("frontend", FRONTENDS)
@_SETTINGS
@given(shape=_shapes, data=st.data())
def test_expand_squeeze_unsqueeze_match_eager_on_drawn_shapes(frontend, shape, data):
    ones = tuple(1 if data.draw(st.booleans()) else s for s in shape)
    lead = data.draw(st.lists(st.integers(1, 3), max_size=2))
    dim = data.draw(st.integers(-len(shape) - 1, len(shape)))
    fn = lambda x: x.expand(*lead, *shape).unsqueeze(dim).squeeze()  # noqa: E731
    check_lowering(fn, (randn(*ones),), frontend)


# ---- unsupported forms ------------------------------------------------------------------------
@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize(
    "fn, inputs, match",
    [
        pytest.param(
            lambda x, m: x[m],
            (randn(4), torch.tensor([True, False, True, True])),
            "index|nonzero",
            id="bool-mask-index",
        ),
    ],
)
def test_advanced_indexing_is_unsupported(fn, inputs, match, frontend):
    with pytest.raises(UnsupportedOpError, match=match):
        lower(wrap(fn, 2), inputs, frontend=frontend)
