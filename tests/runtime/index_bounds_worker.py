"""Worker of test_index_bounds.py: compiles one op family's models and calls them with
every boundary index value, printing one JSON line per call.

Run as ``python index_bounds_worker.py FAMILY``. Each line says what eager did (a result
or an exception) and what the compiled model did; the parent judges. A crash of this
process (SIGSEGV, abort) is the parent's failure, not pytest's.
"""

from __future__ import annotations

import json
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

import cuvil
from cuvil.errors import CuvilRuntimeError

N = 5  # the size of every indexed dim
BIG = 2**40


def boundary_values(dtype: torch.dtype) -> list[int]:
    wide = (BIG, -BIG) if dtype is torch.int64 else (2**31 - 1, -(2**31))
    return [N, N - 1, -1, -N, -N - 1, 0, *wide]


class Embedding(nn.Module):
    def __init__(self):
        super().__init__()
        self.e = nn.Embedding(N, 3)

    def forward(self, x, i):
        return self.e(i) + x[0, 0]


class FunctionalEmbedding(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(N, 3))

    def forward(self, x, i):
        return F.embedding(i, self.w) * 2.0


class EmbeddingBag(nn.Module):
    def __init__(self):
        super().__init__()
        self.e = nn.EmbeddingBag(N, 3, mode="sum")

    def forward(self, x, i):
        return self.e(i.view(1, -1))


def _fn(body):
    """A module whose forward is `body(x, i)`."""

    class M(nn.Module):
        def forward(self, x, i):
            return body(x, i)

    M.__name__ = body.__name__
    return M


def _setitem(x, i):
    y = x.clone()
    y[i] = 1.0
    return y


def _nll(x, i):
    return F.nll_loss(x, i, reduction="none")


def _cross_entropy(x, i):
    return F.cross_entropy(x, i, reduction="none")


def _unpool(x, i):
    return F.max_unpool1d(x[:2, :3].unsqueeze(0), i, 2, output_size=[N])


# name: (module class, index layout, frontends)
#   "row": i = [0, v, 1] (a 1-d index of 3); "along": i is [N, 2] with i[1, 1] = v;
#   "target": i = [0, v, 1, 2, 3] (one class per row of x); "unpool": [1, 2, 3] positions
FX, EXPORT = ("fx",), ("export",)
FAMILIES: dict[str, dict[str, tuple]] = {
    "embedding": {
        "embedding": (Embedding, "row", FX + EXPORT),
        "F.embedding": (FunctionalEmbedding, "row", FX),
        "embedding_bag": (EmbeddingBag, "row", FX),
    },
    "index": {
        "x[i]": (_fn(lambda x, i: x[i]), "row", FX + EXPORT),
        "x[:, i]": (_fn(lambda x, i: x[:, i] + 1.0), "row", FX),
        "x[i, i]": (_fn(lambda x, i: x[i, i]), "row", FX),
        "index_select": (_fn(lambda x, i: torch.index_select(x, 1, i)), "row", FX),
    },
    "gather": {
        "gather": (_fn(lambda x, i: torch.gather(x, 1, i)), "along", FX + EXPORT),
        "take_along_dim": (
            _fn(lambda x, i: torch.take_along_dim(x, i, 1)),
            "along",
            FX,
        ),
        "take": (_fn(lambda x, i: torch.take(x, i)), "row", FX),
        "nll_loss": (_fn(_nll), "target", FX),
        "cross_entropy": (_fn(_cross_entropy), "target", FX),
    },
    "put": {
        "x[i] = 1": (_fn(_setitem), "row", EXPORT),
        "index_put": (
            _fn(lambda x, i: torch.index_put(x, (i,), x[:3] * 2)),
            "row",
            FX + EXPORT,
        ),
        "index_put(acc)": (
            _fn(lambda x, i: torch.index_put(x, (i,), x[:3], accumulate=True)),
            "row",
            FX,
        ),
        "index_add": (_fn(lambda x, i: x.index_add(0, i, x[:3])), "row", FX + EXPORT),
        "index_copy": (_fn(lambda x, i: x.index_copy(0, i, x[:3] * 2)), "row", FX),
        "index_fill": (_fn(lambda x, i: x.index_fill(1, i, 2.0)), "row", FX),
    },
    "scatter": {
        "scatter": (
            _fn(lambda x, i: torch.scatter(x, 1, i, x[:, :2] * 3)),
            "along",
            FX + EXPORT,
        ),
        "scatter(value)": (_fn(lambda x, i: x.scatter(1, i, 7.0)), "along", FX),
        "scatter_add": (
            _fn(lambda x, i: torch.scatter_add(x, 1, i, x[:, :2])),
            "along",
            FX,
        ),
        "scatter_reduce": (
            _fn(lambda x, i: torch.scatter_reduce(x, 1, i, x[:, :2], "amax")),
            "along",
            FX,
        ),
        "one_hot": (_fn(lambda x, i: F.one_hot(i, N) + 0), "row", FX + EXPORT),
        "max_unpool1d": (_fn(_unpool), "unpool", FX + EXPORT),
    },
}
# (frontend, opt level) of each build; int32 indices where torch takes them
BUILDS = (("fx", "O3"), ("fx", "O0"), ("export", "O3"))


def make_index(layout: str, v: int, dtype: torch.dtype) -> torch.Tensor:
    if layout == "along":
        t = torch.zeros(N, 2, dtype=torch.int64)
        t[1, 1] = v
        return t.to(dtype)
    if layout == "unpool":
        return torch.tensor([[[0, v, 4], [1, 2, 3]]], dtype=torch.int64).to(dtype)
    rows = [0, v, 1, 2, 3] if layout == "target" else [0, v, 1]
    return torch.tensor(rows, dtype=torch.int64).to(dtype)


def _outcome(fn, *args):
    try:
        return fn(*args), None
    except Exception as e:  # noqa: BLE001 - the kind is the result
        return None, e


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point():
        return bool(torch.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True))
    return bool(torch.equal(a, b))


def run_case(name, model, layout, frontend, opt, dtype) -> list[dict]:
    x = torch.randn(N, N)
    example = (x, make_index(layout, 0, dtype))
    _, eager_err = _outcome(model, *example)
    if eager_err is not None:  # torch refuses this index dtype: nothing to compare
        return []
    build = dict(op=name, frontend=frontend, opt=opt, dtype=str(dtype))
    compiled, err = _outcome(
        cuvil.compile, model, example, "cpu", {"frontend": frontend, "opt_level": opt}
    )
    if err is not None:
        return [dict(build, value=None, compile_error=f"{type(err).__name__}: {err}")]
    return compare(build, model, compiled, x, layout, dtype)


def compare(build: dict, model, compiled, x, layout: str, dtype) -> list[dict]:
    """One row per boundary value: what eager did and what the compiled model did."""
    rows = []
    for v in boundary_values(dtype):
        args = (x, make_index(layout, v, dtype))
        want, eager_err = _outcome(model, *args)
        got, got_err = _outcome(compiled, *args)
        rows.append(
            dict(
                build,
                value=v,
                eager_raised=eager_err is not None,
                cuvil_error=None if got_err is None else str(got_err),
                cuvil_error_kind=None if got_err is None else type(got_err).__name__,
                cuvil_runtime_error=isinstance(got_err, CuvilRuntimeError),
                same=want is not None and got is not None and _same(want, got),
            )
        )
    return rows


def run_other_runtimes() -> list[dict]:
    """An embedding through the AOT bundle, the dynamic-shape module and 4 threads."""
    import os
    import tempfile

    model = Embedding().eval()
    x, i = torch.randn(N, N), make_index("row", 0, torch.int64)
    builds = {
        "threads=4": cuvil.compile(model, (x, i), options={"num_threads": 4}),
        "dynamic": cuvil.compile(model, (x, i), options={"dynamic": True}),
    }
    with tempfile.TemporaryDirectory() as d:
        cuvil.save(builds["threads=4"], os.path.join(d, "bundle"))
        builds["aot"] = cuvil.load(os.path.join(d, "bundle"))
        rows = []
        for how, compiled in builds.items():
            build = dict(op="embedding", frontend=how, opt="O3", dtype="torch.int64")
            rows += compare(build, model, compiled, x, "row", torch.int64)
    return rows


def main(family: str) -> None:
    torch.manual_seed(0)
    if family == "runtimes":
        for row in run_other_runtimes():
            print(json.dumps(row), flush=True)
        return
    for name, (cls, layout, frontends) in FAMILIES[family].items():
        model = cls().eval()
        for frontend, opt in BUILDS:
            if frontend not in frontends:
                continue
            dtypes = (torch.int64, torch.int32) if opt == "O3" else (torch.int64,)
            for dtype in dtypes:
                for row in run_case(name, model, layout, frontend, opt, dtype):
                    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
