"""The indexing ops compiled to native code at O0 and O3 match eager PyTorch with both
frontends (floats rtol 1e-4 / atol 1e-5, integers and bools exactly), on the frontend
tests' cases and on hypothesis-drawn shapes; an index out of range never reads or writes
out of bounds: the call raises a CuvilRuntimeError naming the op, its FX node and the
model line (embedding included), and the module keeps working on good indices."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_checks import randn, wrap
from test_lower_index import CASES, FX_ONLY_FAILS

import cuvil
from cuvil.errors import CuvilRuntimeError

OPTS = ["O0", "O3"]
FRONTENDS = ["fx", "export"]
RTOL, ATOL = 1e-4, 1e-5


def compiled(fn, inputs, opt: str, frontend: str):
    model = fn if isinstance(fn, torch.nn.Module) else wrap(fn, len(inputs))
    options = {"opt_level": opt, "frontend": frontend}
    return cuvil.compile(model.eval(), list(inputs), options=options)


def check(fn, inputs, opt: str, frontend: str) -> None:
    want = fn(*[x.clone() for x in inputs])
    got = compiled(fn, inputs, opt, frontend)(*inputs)
    torch.testing.assert_close(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("opt", OPTS)
@pytest.mark.parametrize("fn, inputs", CASES)
def test_compiled_indexing_matches_eager(fn, inputs, opt, frontend, request):
    if frontend == "fx" and any(n in request.node.callspec.id for n in FX_ONLY_FAILS):
        pytest.skip("torch.fx cannot trace item assignment on a Proxy")
    check(fn, inputs, opt, frontend)


# ---- out-of-range indices -------------------------------------------------------------------
class Embed(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = torch.nn.Embedding(8, 3)

    def forward(self, ids):
        return self.emb(ids)


def _gather(x, i):
    return torch.gather(x, 1, i)


def _index(x, i):
    return x[:, i]


def _index_select(x, i):
    return x.index_select(0, i)


def _index_put(x, i):
    return x.index_put((i,), torch.tensor(1.0), accumulate=True)


def _scatter(x, i):
    return x.scatter_add(1, i, torch.ones(i.shape))


OOB = [
    # (model, good inputs, bad index, op, message)
    (_gather, [randn(3, 8), torch.tensor([[0], [7], [3]])], torch.tensor([[0], [9], [3]]),
     "cuvil.gather", "index 9 is out of range for dim 1 of size 8"),
    (_index, [randn(3, 8), torch.tensor([-8, 7])], torch.tensor([1, -9]),
     "cuvil.index", "index -9 is out of range for dim 1 of size 8"),
    (_index_select, [randn(4, 2), torch.tensor([3, 0])], torch.tensor([-1, 0]),
     "cuvil.index", "index -1 is out of range for dim 0 of size 4"),
    (_index_put, [randn(4, 2), torch.tensor([3, -4])], torch.tensor([4, 0]),
     "cuvil.index_put", "index 4 is out of range for dim 0 of size 4"),
    (_scatter, [randn(2, 4), torch.tensor([[3], [0]])], torch.tensor([[3], [-1]]),
     "cuvil.scatter", "index -1 is out of range for dim 1 of size 4"),
    (Embed(), [torch.tensor([[1, 7]])], torch.tensor([[8, 1]]),
     "cuvil.embedding", "index 8 is out of range for dim 0 of size 8"),
]  # fmt: skip


@pytest.mark.parametrize("frontend", FRONTENDS)
@pytest.mark.parametrize("opt", OPTS)
@pytest.mark.parametrize(
    "fn, good, bad, op, message", OOB, ids=lambda v: getattr(v, "__name__", None)
)
def test_out_of_range_index_raises_naming_op_and_node(
    fn, good, bad, op, message, opt, frontend
):
    c = compiled(fn, good, opt, frontend)
    torch.testing.assert_close(c(*good), fn(*good))
    with pytest.raises((IndexError, RuntimeError)):  # torch refuses it too
        fn(*good[:-1], bad)
    with pytest.raises(CuvilRuntimeError, match=message) as e:
        c(*good[:-1], bad)
    assert op in str(e.value) and "FX node '" in str(e.value)
    assert e.value.where and ".py:" in e.value.where  # the model's line
    torch.testing.assert_close(c(*good), fn(*good))  # the status is cleared per call


# ---- hypothesis-drawn shapes ----------------------------------------------------------------
@settings(max_examples=15, deadline=None)
@given(
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=3),
    n=st.integers(1, 6),
    seed=st.integers(0, 2**16),
    kind=st.sampled_from(["index", "gather", "scatter_add", "index_put"]),
    opt=st.sampled_from(OPTS),
    frontend=st.sampled_from(FRONTENDS),
)
def test_indexing_on_drawn_shapes(shape, n, seed, kind, opt, frontend):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g)
    dim = seed % len(shape)
    size = shape[dim]
    if kind == "index":
        i = torch.randint(-size, size, (n, 2), generator=g)
        check(lambda x, i: x[(slice(None),) * dim + (i,)], [x, i], opt, frontend)
    elif kind == "index_put":
        i = torch.randint(0, size, (n,), generator=g)
        fn = lambda x, i: x.index_put((i,), torch.tensor(0.5), accumulate=True)  # noqa: E731
        check(
            fn,
            [x, i] if dim == 0 else [x.transpose(0, dim).contiguous(), i],
            opt,
            frontend,
        )
    else:
        ishape = [max(1, d - seed % 2) for d in shape]
        ishape[dim] = n
        i = torch.randint(0, size, ishape, generator=g)
        if kind == "gather":
            check(lambda x, i: x.gather(dim, i), [x, i], opt, frontend)
        else:
            src = torch.randn(ishape, generator=g)
            check(lambda x, i, s: x.scatter_add(dim, i, s), [x, i, src], opt, frontend)


def test_saved_module_reports_out_of_range_index_too(tmp_path):
    good = [randn(3, 8), torch.tensor([[0], [7], [3]])]
    loaded = cuvil.load(
        cuvil.save(compiled(_gather, good, "O3", "export"), tmp_path / "g")
    )
    torch.testing.assert_close(loaded(*good), _gather(*good))
    with pytest.raises(
        CuvilRuntimeError, match=r"index 8 .* in cuvil.gather \(FX node"
    ):
        loaded(good[0], torch.tensor([[0], [8], [3]]))
    torch.testing.assert_close(loaded(*good), _gather(*good))


@pytest.mark.parametrize("opt", OPTS)
def test_reflect_padded_conv_compiles_through_index(opt):
    model = torch.nn.Conv2d(2, 2, 3, padding=1, padding_mode="reflect").eval()
    x = randn(1, 2, 5, 5)
    with torch.no_grad():
        want = model(x)
    got = compiled(model, [x], opt, "export")(x)
    torch.testing.assert_close(got, want, rtol=RTOL, atol=ATOL)
