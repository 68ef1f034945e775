"""NativeModule's call (runtime/compiled.py): the checks and output packing it decides
once at build time give what the per-call walk gave - the outputs in the model's
structure, and a clear error for every kind of wrong input."""

from __future__ import annotations

import pytest
import torch

import cuvil


class Shaped(torch.nn.Module):
    """Two results of x, returned in the structure `kind` names."""

    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def forward(self, x):
        a, b = torch.relu(x), x * 2.0
        return {
            "tensor": lambda: a,
            "tuple": lambda: (a, b),
            "list": lambda: [a, b],
            "dict": lambda: {"a": a, "b": (b,)},
            "nested": lambda: ((a,), b),
        }[self.kind]()


X = torch.randn(3, 5, generator=torch.Generator().manual_seed(0))


# export keeps the output's structure; fx's graph gives a tensor or a tuple here (its
# lists and dicts come back as torch.fx's immutable_list / immutable_dict)
CASES = [(k, "export") for k in ("tensor", "tuple", "list", "dict", "nested")] + [
    ("tensor", "fx"),
    ("tuple", "fx"),
]


@pytest.fixture(scope="module")
def compiled():
    """(kind, frontend) -> the module compiled."""
    return {
        (kind, frontend): cuvil.compile(
            Shaped(kind), [X], options={"frontend": frontend}
        )
        for kind, frontend in CASES
    }


@pytest.mark.parametrize("kind, frontend", CASES)
def test_outputs_keep_the_models_structure(compiled, kind, frontend):
    got, want = compiled[kind, frontend](X), Shaped(kind)(X)
    got_leaves, got_spec = torch.utils._pytree.tree_flatten(got)
    want_leaves, want_spec = torch.utils._pytree.tree_flatten(want)
    assert got_spec == want_spec
    for g, w in zip(got_leaves, want_leaves):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)
    # fresh tensors each call: a result is never overwritten by the next call
    again = torch.utils._pytree.tree_flatten(compiled[kind, frontend](X + 1))[0]
    assert all(a.data_ptr() != g.data_ptr() for a, g in zip(again, got_leaves))


def test_non_contiguous_input_runs_as_its_contiguous_copy(compiled):
    run = compiled["tuple", "fx"]
    xt = torch.randn(5, 3).t()  # (3, 5), strides (1, 3)
    assert not xt.is_contiguous()
    for g, w in zip(run(xt), Shaped("tuple")(xt)):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "bad, message",
    [
        ((X.reshape(15),), r"input 0 .* is \(15,\) torch.float32, expected"),
        ((X[:2],), r"is \(2, 5\) torch.float32, expected tensor<3x5xf32>"),
        ((X.double(),), "float64"),
        ((X.tolist(),), "must be a tensor, got list"),
        ((3.0,), "must be a tensor, got float"),
        ((X, X), "takes 1 inputs, got 2"),
        ((), "takes 1 inputs, got 0"),
    ],
)
def test_a_wrong_input_is_a_clear_error(compiled, bad, message):
    with pytest.raises(cuvil.CuvilRuntimeError, match=message):
        compiled["tuple", "fx"](*bad)
